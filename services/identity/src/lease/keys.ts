import { createHash, createPrivateKey, createPublicKey } from "node:crypto";
import { fromBase64Url, toBase64Url } from "./encoding.js";

/** An Ed25519 public key as leases name it. */
export interface LeasePublicKey {
  /** RFC 7638 JWK thumbprint: pinning the id pins the key itself. */
  publicKeyId: string;
  /** The raw 32-byte key. */
  publicKey: Uint8Array;
  /** SPKI PEM, for openssl and node:crypto. */
  publicKeyPem: string;
}

/** The signing key: the 32-byte seed @noble/ed25519 signs with, and its public half. */
export interface LeaseSigningKey extends LeasePublicKey {
  secretKey: Uint8Array;
}

/**
 * The id of an Ed25519 public key: its RFC 7638 thumbprint (SHA-256 of the canonical OKP JWK,
 * base64url). Anyone holding the key can recompute it, so a holder that pins the id can take the
 * key material from any source, the vendor's endpoint included, and check it.
 *
 * @example publicKeyIdOf(raw) // "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"
 */
export function publicKeyIdOf(publicKey: Uint8Array): string {
  const jwk = `{"crv":"Ed25519","kty":"OKP","x":"${toBase64Url(publicKey)}"}`;
  return createHash("sha256").update(jwk).digest("base64url");
}

/** A raw public key with its id and PEM form. */
export function leasePublicKey(publicKey: Uint8Array): LeasePublicKey {
  const key = createPublicKey({
    key: { kty: "OKP", crv: "Ed25519", x: toBase64Url(publicKey) },
    format: "jwk",
  });
  return {
    publicKeyId: publicKeyIdOf(publicKey),
    publicKey,
    publicKeyPem: key.export({ type: "spki", format: "pem" }).toString(),
  };
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

/** Every SPKI PEM public key in `text` (blocks concatenated), each an Ed25519 key. */
export function publicKeysFromPem(text: string): LeasePublicKey[] {
  const blocks = text.match(/-----BEGIN PUBLIC KEY-----[\s\S]+?-----END PUBLIC KEY-----/g) ?? [];
  if (blocks.length === 0 && text.trim() !== "")
    throw new TypeError("no -----BEGIN PUBLIC KEY----- block found");
  return blocks.map((block, i) => {
    const jwk = createPublicKey(block).export({ format: "jwk" });
    if (jwk.crv !== "Ed25519" || !jwk.x)
      throw new TypeError(`public key ${i + 1} is not an Ed25519 key`);
    return leasePublicKey(fromBase64Url(jwk.x)!);
  });
}
