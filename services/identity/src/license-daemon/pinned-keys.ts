import { pinnedOnly, readIfExists, type HolderPaths, type LeasePublicKey } from "@svc/lib/license";
import { writeFileAtomic } from "./atomic-file.js";

/** Keeps the served keys that are pinned (see pinnedOnly) in the daemon's cache file. */
export async function rememberServedKeys(
  paths: HolderPaths,
  pinned: string[],
  served: Array<{ public_key_id: string; public_key: string }>,
): Promise<LeasePublicKey[]> {
  const text = await readIfExists(paths.keys);
  const cached = text ? (JSON.parse(text) as Record<string, string>) : {};
  for (const k of served) cached[k.public_key_id] = k.public_key;
  const kept = pinnedOnly(cached, pinned);
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
