import { randomBytes } from "node:crypto";
import { signAsync, verifyAsync } from "@noble/ed25519";
import { fromBase64Url, leaseTime, toBase64Url } from "@svc/lib/license";

export const RENEWAL_FORMAT = "svc-license-renewal/v1";

/** What a holder states when it asks for a renewal, signed with its device key. */
export interface RenewalClaims {
  format: typeof RENEWAL_FORMAT;
  deployment_id: string;
  /** The lease being renewed. */
  lease_id: string;
  /** 16 random bytes, base64url: the server accepts each nonce once. */
  nonce: string;
  /** RFC 3339 UTC; the server accepts it within RENEWAL_SKEW_SECONDS of its own clock. */
  signed_at: string;
}

/** How far the holder's clock may be from the server's when it signs a renewal. */
export const RENEWAL_SKEW_SECONDS = 300;

/**
 * The device credential of a renewal: `base64url(claims JSON) "." base64url(signature)`, the
 * signature covering the bytes of the first part exactly as sent. Only signatures leave the
 * holder: its device key never does, and a captured credential is spent by its nonce.
 *
 * @example body.device_credential = await signRenewal(deviceSecretKey, { deploymentId, leaseId });
 */
export async function signRenewal(
  deviceSecretKey: Uint8Array,
  what: { deploymentId: string; leaseId: string; nowMs?: number },
): Promise<string> {
  const claims: RenewalClaims = {
    format: RENEWAL_FORMAT,
    deployment_id: what.deploymentId,
    lease_id: what.leaseId,
    nonce: randomBytes(16).toString("base64url"),
    signed_at: leaseTime(what.nowMs ?? Date.now()),
  };
  const body = Buffer.from(JSON.stringify(claims)).toString("base64url");
  const signature = await signAsync(new TextEncoder().encode(body), deviceSecretKey);
  return `${body}.${toBase64Url(signature)}`;
}

/** A credential split and decoded, its signature not yet checked. */
export interface ParsedRenewal {
  claims: RenewalClaims;
  signedBytes: Uint8Array;
  signature: Uint8Array;
}

/** Decodes a credential; undefined when it is not one (the caller answers 400). */
export function parseRenewal(credential: string): ParsedRenewal | undefined {
  const [body, sig, extra] = credential.split(".");
  if (!body || !sig || extra !== undefined) return undefined;
  const json = fromBase64Url(body);
  const signature = fromBase64Url(sig);
  if (!json || !signature || signature.length !== 64) return undefined;
  let claims: unknown;
  try {
    claims = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(json));
  } catch {
    return undefined;
  }
  if (!isRenewalClaims(claims)) return undefined;
  return { claims, signedBytes: new TextEncoder().encode(body), signature };
}

/** True when the device key signed exactly these bytes. */
export function renewalSignedBy(parsed: ParsedRenewal, devicePublicKey: Uint8Array) {
  return verifyAsync(parsed.signature, parsed.signedBytes, devicePublicKey, {
    zip215: false,
  }).catch(() => false);
}

function isRenewalClaims(v: unknown): v is RenewalClaims {
  if (typeof v !== "object" || v === null) return false;
  const c = v as Record<string, unknown>;
  return (
    c.format === RENEWAL_FORMAT &&
    ["deployment_id", "lease_id", "nonce", "signed_at"].every(
      (k) =>
        typeof c[k] === "string" && (c[k] as string).length > 0 && (c[k] as string).length < 300,
    ) &&
    /^[A-Za-z0-9_-]{16,64}$/.test(c.nonce as string) &&
    !Number.isNaN(Date.parse(c.signed_at as string))
  );
}
