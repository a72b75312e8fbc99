import { createHash, randomBytes } from "node:crypto";

/** How long an invite can be accepted when the issuer does not say (7 days), and at most. */
export const INVITE_TTL_DEFAULT_S = 7 * 86_400;
export const INVITE_TTL_MAX_S = 30 * 86_400;

/** The role an invite gives when the issuer names none. */
export const INVITE_DEFAULT_ROLE = "member";

/**
 * A new invite token (32 random bytes, base64url, with a prefix a secret scanner can match) and
 * the SHA-256 the platform keeps instead of it: a leaked database admits nobody.
 */
export function mintInviteToken(): { token: string; hash: string } {
  const token = `svcinv_${randomBytes(32).toString("base64url")}`;
  return { token, hash: inviteTokenHash(token) };
}

export function inviteTokenHash(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export type InviteStatus = "pending" | "accepted" | "revoked" | "expired";

/**
 * What an invite is now. Accepted and revoked are final and win over expiry, so an invite used
 * yesterday says "accepted", not "expired", after its date passes.
 */
export function inviteStatus(
  row: { accepted_at: Date | null; revoked_at: Date | null; expires_at: Date },
  now: Date,
): InviteStatus {
  if (row.accepted_at) return "accepted";
  if (row.revoked_at) return "revoked";
  return row.expires_at.getTime() <= now.getTime() ? "expired" : "pending";
}
