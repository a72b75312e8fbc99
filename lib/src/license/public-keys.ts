import { createHash, createPublicKey } from "node:crypto";
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
