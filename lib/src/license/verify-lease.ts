import { verifyAsync } from "@noble/ed25519";
import { canonicalBytes } from "./canonical.js";
import { fromBase64Url } from "./encoding.js";
import type { LeasePublicKey } from "./public-keys.js";
import type { SignedLease } from "./lease-document.js";

/** Why a lease failed verification. */
export type LeaseRefusal = "unknown_key" | "bad_signature";

/**
 * Checks the signature of a parsed lease offline against the keys the verifier trusts (RFC 8032
 * strict: @noble/ed25519 with zip215 off, as OpenSSL verifies). Returns the refusal, or undefined
 * when the lease is authentic.
 *
 * @example if ((await verifyLeaseSignature(lease, pinned)) === undefined) useIt(lease);
 */
export async function verifyLeaseSignature(
  lease: SignedLease,
  trusted: readonly LeasePublicKey[],
): Promise<LeaseRefusal | undefined> {
  const key = trusted.find((k) => k.publicKeyId === lease.payload.public_key_id);
  if (!key) return "unknown_key";
  const signature = fromBase64Url(lease.signature);
  if (!signature || signature.length !== 64) return "bad_signature";
  const ok = await verifyAsync(signature, canonicalBytes(lease.payload), key.publicKey, {
    zip215: false,
  }).catch(() => false);
  return ok ? undefined : "bad_signature";
}
