import { signAsync, verifyAsync } from "@noble/ed25519";
import { canonicalBytes } from "../license/canonical.js";
import { fromBase64Url, toBase64Url } from "../license/encoding.js";

/** Names what a checkpoint's signature covers, so no other signed document can pass for one. */
export const CHECKPOINT_FORMAT = "svc-audit-checkpoint/1";

/** What the identity service signs: the chain's head as it appended it, and when. */
export interface CheckpointPayload {
  format: typeof CHECKPOINT_FORMAT;
  /** The seq of the newest row the signer vouches for (0: the empty chain). */
  seq: number;
  /** That row's hash (the genesis hash for seq 0). */
  head_hash: string;
  /** When it was signed, RFC 3339 UTC with milliseconds. */
  time: string;
  /** The RFC 7638 thumbprint of the signing key (publicKeyIdOf). */
  key_id: string;
}

/** A checkpoint as it travels and is stored outside the database: its payload and signature. */
export interface SignedCheckpoint {
  payload: CheckpointPayload;
  /** Ed25519 over the RFC 8785 canonical JSON of the payload, base64url. */
  signature: string;
}

/**
 * Signs a checkpoint with the checkpoint key's 32-byte seed.
 *
 * @example await signCheckpoint({ seq: 42, head_hash, time: new Date().toISOString() }, key)
 */
export async function signCheckpoint(
  head: { seq: number; head_hash: string; time: string },
  key: { publicKeyId: string; secretKey: Uint8Array },
): Promise<SignedCheckpoint> {
  const payload: CheckpointPayload = {
    format: CHECKPOINT_FORMAT,
    seq: head.seq,
    head_hash: head.head_hash,
    time: head.time,
    key_id: key.publicKeyId,
  };
  return {
    payload,
    signature: toBase64Url(await signAsync(canonicalBytes(payload), key.secretKey)),
  };
}

/** Why a checkpoint is not to be believed. */
export type CheckpointRefusal = "unknown_key" | "bad_signature";

/**
 * Checks a checkpoint's signature against the keys the verifier trusts (RFC 8032 strict).
 * Returns the refusal, or undefined when the checkpoint is authentic.
 */
export async function checkpointRefusal(
  c: SignedCheckpoint,
  trusted: ReadonlyArray<{ publicKeyId: string; publicKey: Uint8Array }>,
): Promise<CheckpointRefusal | undefined> {
  const key = trusted.find((k) => k.publicKeyId === c.payload.key_id);
  if (!key) return "unknown_key";
  const signature = fromBase64Url(c.signature);
  if (!signature || signature.length !== 64 || c.payload.format !== CHECKPOINT_FORMAT)
    return "bad_signature";
  const ok = await verifyAsync(signature, canonicalBytes(c.payload), key.publicKey, {
    zip215: false,
  }).catch(() => false);
  return ok ? undefined : "bad_signature";
}
