import { readFileSync } from "node:fs";
import {
  publicKeysFromPem,
  signingKeyFromPem,
  type LeasePublicKey,
  type LeaseSigningKey,
} from "../lease/index.js";

/** The keys of the issuer: the active one signs; retired ones are only served. */
export type SigningKeys =
  | { on: true; active: LeaseSigningKey; retired: LeasePublicKey[] }
  | { on: false; why: string; retired: LeasePublicKey[] };

/**
 * Reads the lease-signing key from SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PEM or _PATH (a secrets
 * platform's mount) once at start. Never throws: licensing is then off and `why` says what to fix,
 * for the start-up log and the 503 answers.
 */
export function loadSigningKeys(settings: {
  privateKeyPem?: string;
  privateKeyPath?: string;
  retiredPublicKeysPem?: string;
}): SigningKeys {
  let retired: LeasePublicKey[] = [];
  try {
    retired = publicKeysFromPem(settings.retiredPublicKeysPem ?? "");
  } catch (err) {
    return {
      on: false,
      why: `SVC_AUTH_LICENSE_LEASE_RETIRED_PUBLIC_KEYS_PEM is unreadable: ${(err as Error).message}`,
      retired: [],
    };
  }
  let pem = settings.privateKeyPem;
  let source = "SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PEM";
  if (!pem && settings.privateKeyPath) {
    source = `SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PATH (${settings.privateKeyPath})`;
    try {
      pem = readFileSync(settings.privateKeyPath, "utf8");
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      return { on: false, why: `${source} cannot be read: ${why}`, retired };
    }
  }
  if (!pem)
    return {
      on: false,
      why: "neither SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PEM nor SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PATH is set",
      retired,
    };
  try {
    const active = signingKeyFromPem(pem);
    return {
      on: true,
      active,
      retired: retired.filter((k) => k.publicKeyId !== active.publicKeyId),
    };
  } catch (err) {
    return { on: false, why: `${source} holds no usable key: ${(err as Error).message}`, retired };
  }
}
