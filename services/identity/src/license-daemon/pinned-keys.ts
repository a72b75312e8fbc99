import {
  fromBase64Url,
  leasePublicKey,
  publicKeyIdOf,
  type LeasePublicKey,
} from "../lease/index.js";
import { readIfExists, writeFileAtomic } from "./atomic-file.js";
import type { HolderPaths } from "./holder-files.js";

/** The pinned keys whose material the daemon holds, from its cache file. */
export async function readPinnedKeys(
  paths: HolderPaths,
  pinned: string[],
): Promise<LeasePublicKey[]> {
  const text = await readIfExists(paths.keys);
  const cached = text ? (JSON.parse(text) as Record<string, string>) : {};
  return accept(cached, pinned);
}

/**
 * Keeps the served keys that are pinned. A key's id is its RFC 7638 thumbprint, recomputed here:
 * a served key that does not hash to a pinned id is ignored, whoever served it.
 */
export async function rememberServedKeys(
  paths: HolderPaths,
  pinned: string[],
  served: Array<{ public_key_id: string; public_key: string }>,
): Promise<LeasePublicKey[]> {
  const text = await readIfExists(paths.keys);
  const cached = text ? (JSON.parse(text) as Record<string, string>) : {};
  for (const k of served) cached[k.public_key_id] = k.public_key;
  const kept = accept(cached, pinned);
  await writeFileAtomic(
    paths.keys,
    JSON.stringify(
      Object.fromEntries(
        kept.map((k) => [k.publicKeyId, Buffer.from(k.publicKey).toString("base64url")]),
      ),
      null,
      2,
    ) + "\n",
  );
  return kept;
}

function accept(cached: Record<string, string>, pinned: string[]): LeasePublicKey[] {
  return pinned.flatMap((id) => {
    const raw = cached[id] ? fromBase64Url(cached[id]) : undefined;
    return raw?.length === 32 && publicKeyIdOf(raw) === id ? [leasePublicKey(raw)] : [];
  });
}
