import { signAsync } from "@noble/ed25519";
import { canonicalBytes, toBase64Url, type LeasePayload, type SignedLease } from "@svc/lib/license";
import type { LeaseSigningKey } from "./keys.js";

/**
 * Signs a payload with @noble/ed25519 over its canonical bytes.
 *
 * @example const text = JSON.stringify(await signLease(payload, key));
 */
export async function signLease(payload: LeasePayload, key: LeaseSigningKey): Promise<SignedLease> {
  if (payload.public_key_id !== key.publicKeyId)
    throw new TypeError("payload.public_key_id must name the signing key");
  return { payload, signature: toBase64Url(await signBytes(canonicalBytes(payload), key)) };
}

/** The Ed25519 signature (RFC 8032, pure) of `message` with the lease-signing key. */
export function signBytes(message: Uint8Array, key: LeaseSigningKey): Promise<Uint8Array> {
  return signAsync(message, key.secretKey);
}
