import { createPrivateKey } from "node:crypto";
import { fromBase64Url, leasePublicKey, type LeasePublicKey } from "@svc/lib/license";

/** The signing key: the 32-byte seed @noble/ed25519 signs with, and its public half. */
export interface LeaseSigningKey extends LeasePublicKey {
  secretKey: Uint8Array;
}

/**
 * The signing key from a PKCS#8 PEM. Throws a TypeError saying what is wrong (not PEM, not
 * Ed25519) so the start-up log can tell the operator.
 */
export function signingKeyFromPem(pem: string): LeaseSigningKey {
  let jwk: { kty?: string; crv?: string; d?: string; x?: string };
  try {
    jwk = createPrivateKey(pem).export({ format: "jwk" });
  } catch (err) {
    throw new TypeError(`not a PKCS#8 PEM private key (${(err as Error).message})`);
  }
  if (jwk.kty !== "OKP" || jwk.crv !== "Ed25519" || !jwk.d || !jwk.x)
    throw new TypeError(`an Ed25519 key is needed, this one is ${jwk.crv ?? jwk.kty ?? "unknown"}`);
  return { ...leasePublicKey(fromBase64Url(jwk.x)!), secretKey: fromBase64Url(jwk.d)! };
}
