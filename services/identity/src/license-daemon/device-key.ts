import { mkdir } from "node:fs/promises";
import { getPublicKeyAsync, utils } from "@noble/ed25519";
import { fromBase64Url, toBase64Url } from "@svc/lib/license";
import { readIfExists, type HolderPaths } from "@svc/lib/license";
import { writeFileAtomic } from "./atomic-file.js";

/** The holder's device key: its private half never leaves the machine, only signatures do. */
export interface DeviceKey {
  secretKey: Uint8Array;
  /** base64url, what the vendor registers as device_public_key. */
  publicKey: string;
}

export async function readDeviceKey(paths: HolderPaths): Promise<DeviceKey | undefined> {
  const text = await readIfExists(paths.device);
  if (!text) return undefined;
  const { secret_key } = JSON.parse(text) as { secret_key: string };
  const secretKey = fromBase64Url(secret_key);
  if (secretKey?.length !== 32) throw new Error(`${paths.device} holds no Ed25519 device key`);
  return { secretKey, publicKey: toBase64Url(await getPublicKeyAsync(secretKey)) };
}

/** The device key, made (readable by its owner only) on first use. */
export async function ensureDeviceKey(paths: HolderPaths): Promise<DeviceKey> {
  const existing = await readDeviceKey(paths);
  if (existing) return existing;
  await mkdir(paths.dir, { recursive: true });
  const secretKey = utils.randomSecretKey();
  const publicKey = toBase64Url(await getPublicKeyAsync(secretKey));
  await writeFileAtomic(
    paths.device,
    JSON.stringify({ secret_key: toBase64Url(secretKey), public_key: publicKey }) + "\n",
    0o600,
  );
  return { secretKey, publicKey };
}
