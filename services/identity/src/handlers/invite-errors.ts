import { Code, svcError } from "@svc/lib/errors";
import { inviteStatus } from "../domain/org-invite.js";
import type { OrgInviteRow } from "../store/identity.table.js";

/**
 * Why an invite cannot be accepted or revoked, as a 4xx that says which: unknown (404), already
 * used (409), revoked or expired (410 Gone).
 */
export function inviteUnusable(row: OrgInviteRow | undefined, asked: string, now: Date) {
  if (!row)
    return svcError(Code.NotFound, "invite_not_found", `no invite ${asked} in this organization`);
  const status = inviteStatus(row, now);
  const details = { invite_id: row.id, status };
  if (status === "accepted")
    return svcError(
      Code.AlreadyExists,
      "invite_used",
      `invite ${row.id} was already accepted (at ${row.accepted_at!.toISOString()}); an invite admits one person once`,
      details,
    );
  if (status === "revoked")
    return svcError(
      Code.FailedPrecondition,
      "invite_revoked",
      `invite ${row.id} was revoked at ${row.revoked_at!.toISOString()}; ask for a new one`,
      details,
    );
  return svcError(
    Code.FailedPrecondition,
    "invite_expired",
    `invite ${row.id} expired at ${row.expires_at.toISOString()}; ask for a new one`,
    { ...details, expires_at: row.expires_at.toISOString() },
  );
}

export function invitesDisabled(orgId: string) {
  return svcError(
    Code.FailedPrecondition,
    "org_invites_disabled",
    `organization ${orgId} is group_mapped: its memberships come from identity-provider groups, not invites (migrate its tenancy strategy to hybrid or invite_only first)`,
    { org_id: orgId, tenancy_strategy: "group_mapped" },
  );
}
