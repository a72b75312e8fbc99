import { generateKeyPairSync } from "node:crypto";
import {
  publicKeysFromPem,
  signingKeyFromPem,
  type LeasePublicKey,
  type LeaseSigningKey,
} from "../lease/index.js";

/** The key that signs checkpoints now, and every key a checkpoint may be checked against. */
export interface CheckpointKeys {
  active: LeaseSigningKey;
  /** The active key first, then the trusted earlier ones. */
  trusted: LeasePublicKey[];
  /** Made at start because none was configured: it anchors nothing across a restart. */
  ephemeral: boolean;
}

/**
 * The checkpoint key from SVC_AUDIT_CHECKPOINT_PRIVATE_KEY_PEM, or one made now when none is set
 * (all-in-one development). A key that cannot be read, or that is the lease key, stops the start:
 * a setting that is read must act, and one key must not sign both leases and checkpoints.
 */
export function loadCheckpointKeys(
  settings: { privateKeyPem?: string; trustedPublicKeysPem?: string },
  leaseKeyId: string | undefined,
): CheckpointKeys {
  let active: LeaseSigningKey;
  try {
    active = signingKeyFromPem(
      settings.privateKeyPem ??
        generateKeyPairSync("ed25519")
          .privateKey.export({ type: "pkcs8", format: "pem" })
          .toString(),
    );
  } catch (err) {
    throw new TypeError(
      `SVC_AUDIT_CHECKPOINT_PRIVATE_KEY_PEM holds no usable key: ${(err as Error).message}`,
    );
  }
  if (active.publicKeyId === leaseKeyId)
    throw new TypeError(
      "SVC_AUDIT_CHECKPOINT_PRIVATE_KEY_PEM is the lease-signing key: give the checkpoints a key of their own",
    );
  let others: LeasePublicKey[];
  try {
    others = publicKeysFromPem(settings.trustedPublicKeysPem ?? "");
  } catch (err) {
    throw new TypeError(
      `SVC_AUDIT_CHECKPOINT_TRUSTED_PUBLIC_KEYS_PEM is unreadable: ${(err as Error).message}`,
    );
  }
  return {
    active,
    trusted: [active, ...others.filter((k) => k.publicKeyId !== active.publicKeyId)],
    ephemeral: !settings.privateKeyPem,
  };
}
