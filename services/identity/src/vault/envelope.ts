import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";
import type { Kek } from "./kek.js";

/** What is stored of a secret: its ciphertext and its data key wrapped by a KEK. */
export interface Sealed {
  kekId: string;
  /** nonce (12) | AES-256-GCM ciphertext of the data key (32) | tag (16). */
  wrappedKey: Buffer;
  /** nonce (12) | AES-256-GCM ciphertext of the secret | tag (16). */
  ciphertext: Buffer;
}

/** Where a sealed secret belongs: the credential's id and the version of its secret. */
export interface SealedFor {
  credentialId: string;
  version: number;
}

/** The stored envelope did not open: altered, moved onto another credential, or another key's. */
export class EnvelopeError extends Error {
  constructor(readonly reason: "unknown_kek" | "tampered") {
    super(
      reason === "unknown_kek"
        ? "the credential's data key is wrapped by a key-encryption key this process does not hold"
        : "the credential's stored ciphertext does not authenticate: it was altered or belongs to another credential",
    );
  }
}

const NONCE = 12;
const TAG = 16;

/**
 * Envelope encryption: a fresh data key per secret, AES-256-GCM, the data key wrapped by the KEK.
 * Both layers take the credential's id and version as associated data, so an envelope copied onto
 * another credential (or an older version replayed) fails to authenticate.
 */
export function seal(plaintext: Buffer, at: SealedFor, kek: Kek): Sealed {
  const dataKey = randomBytes(32);
  try {
    return {
      kekId: kek.id,
      wrappedKey: gcmEncrypt(kek.key, dataKey, aad("dek", at)),
      ciphertext: gcmEncrypt(dataKey, plaintext, aad("secret", at)),
    };
  } finally {
    dataKey.fill(0);
  }
}

/** Opens an envelope with whichever of the keys wrapped it; throws EnvelopeError otherwise. */
export function open(sealed: Sealed, at: SealedFor, keks: readonly Kek[]): Buffer {
  const dataKey = unwrap(sealed, at, keks);
  try {
    return gcmDecrypt(dataKey, sealed.ciphertext, aad("secret", at));
  } finally {
    dataKey.fill(0);
  }
}

/** The same secret's data key wrapped by `to` instead; the ciphertext is untouched. */
export function rewrap(sealed: Sealed, at: SealedFor, keks: readonly Kek[], to: Kek): Sealed {
  const dataKey = unwrap(sealed, at, keks);
  try {
    return { ...sealed, kekId: to.id, wrappedKey: gcmEncrypt(to.key, dataKey, aad("dek", at)) };
  } finally {
    dataKey.fill(0);
  }
}

/**
 * A fingerprint of a secret under a key derived from the KEK: the same secret gives the same
 * fingerprint, yet without the KEK nobody can test a guessed password against it.
 */
export function fingerprint(plaintext: Buffer, kek: Kek): string {
  const key = Buffer.from(hkdfSync("sha256", kek.key, "", "svc-vault/fingerprint", 32));
  return createHmac("sha256", key).update(plaintext).digest("hex").slice(0, 32);
}

function unwrap(sealed: Sealed, at: SealedFor, keks: readonly Kek[]): Buffer {
  const kek = keks.find((k) => k.id === sealed.kekId);
  if (!kek) throw new EnvelopeError("unknown_kek");
  return gcmDecrypt(kek.key, sealed.wrappedKey, aad("dek", at));
}

function aad(layer: "dek" | "secret", at: SealedFor): Buffer {
  return Buffer.from(`svc-vault/1|${layer}|${at.credentialId}|${at.version}`);
}

function gcmEncrypt(key: Buffer, plaintext: Buffer, associated: Buffer): Buffer {
  const nonce = randomBytes(NONCE);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  cipher.setAAD(associated);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]);
}

function gcmDecrypt(key: Buffer, sealed: Buffer, associated: Buffer): Buffer {
  if (sealed.length < NONCE + TAG) throw new EnvelopeError("tampered");
  const decipher = createDecipheriv("aes-256-gcm", key, sealed.subarray(0, NONCE), {
    authTagLength: TAG,
  });
  decipher.setAAD(associated);
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG));
  try {
    return Buffer.concat([
      decipher.update(sealed.subarray(NONCE, sealed.length - TAG)),
      decipher.final(),
    ]);
  } catch {
    throw new EnvelopeError("tampered");
  }
}
