import { createHash } from "node:crypto";

/** A key-encryption key: 32 bytes from the environment, named by a digest of itself. */
export interface Kek {
  /** First 8 bytes of SHA-256 of the key, hex: which key wrapped a row, without revealing it. */
  id: string;
  key: Buffer;
}

/** The keys this process holds: the one that wraps, and the one before a rotation. */
export type KekRing = { on: true; active: Kek; previous?: Kek } | { on: false; why: string };

const KEY_BYTES = 32;

/**
 * Reads SVC_VAULT_KEK (and SVC_VAULT_PREVIOUS_KEK) as base64 of 32 bytes. Unset: the vault is
 * off and says why. A value that is not 32 bytes fails the start: a typo must not leave the
 * vault silently off.
 */
export function kekRingFrom(settings: { kek?: string; previousKek?: string }): KekRing {
  if (!settings.kek)
    return {
      on: false,
      why: "SVC_VAULT_KEK is not set (base64 of 32 random bytes, from the environment or a secrets platform)",
    };
  const active = kekOf(settings.kek, "SVC_VAULT_KEK");
  const previous = settings.previousKek
    ? kekOf(settings.previousKek, "SVC_VAULT_PREVIOUS_KEK")
    : undefined;
  return { on: true, active, ...(previous && previous.id !== active.id ? { previous } : {}) };
}

function kekOf(base64: string, setting: string): Kek {
  const key = Buffer.from(base64.trim(), "base64");
  if (key.length !== KEY_BYTES)
    throw new Error(
      `${setting} must be base64 of exactly ${KEY_BYTES} bytes (openssl rand -base64 32); it decodes to ${key.length}`,
    );
  return { id: createHash("sha256").update(key).digest("hex").slice(0, 16), key };
}
