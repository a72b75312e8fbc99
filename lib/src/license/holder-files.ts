import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fromBase64Url } from "./encoding.js";
import { leasePublicKey, publicKeyIdOf, type LeasePublicKey } from "./public-keys.js";

/**
 * What the license daemon remembers between runs, to refuse what an offline holder can be fooled
 * with. The daemon writes it; the license gate reads it, so both refuse the same files.
 */
export interface HolderMemory {
  /** The highest serial of a lease it accepted: an older one is a rolled-back file. */
  highestSerial: number;
  /** The latest wall-clock time it ran at: an earlier clock is a rolled-back clock. */
  lastRunAtMs: number;
  /** The lease it renews from. */
  leaseId?: string;
  /** Set when the vendor answered license_revoked: no more renewals are asked for. */
  revoked: boolean;
}

/** How much earlier than the daemon's last run the clock may read (NTP steps) before it counts as rolled back. */
export const CLOCK_SLACK_MS = 60_000;

/** The files of the license folder (SVC_LICENSE_DIR). */
export function holderPaths(dir: string) {
  return {
    dir,
    lease: join(dir, "lease.json"),
    status: join(dir, "status.json"),
    memory: join(dir, "state.json"),
    keys: join(dir, "pinned-keys.json"),
    device: join(dir, "device-key.json"),
  };
}
export type HolderPaths = ReturnType<typeof holderPaths>;

/** The file's text, or undefined when it does not exist. */
export async function readIfExists(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

export async function readMemory(paths: HolderPaths): Promise<HolderMemory> {
  const text = await readIfExists(paths.memory);
  const fresh: HolderMemory = { highestSerial: 0, lastRunAtMs: 0, revoked: false };
  if (!text) return fresh;
  const m = JSON.parse(text) as Partial<HolderMemory>;
  return { ...fresh, ...m };
}

/** The pinned keys whose material the daemon holds, from its cache file. */
export async function readPinnedKeys(
  paths: HolderPaths,
  pinned: string[],
): Promise<LeasePublicKey[]> {
  const text = await readIfExists(paths.keys);
  const cached = text ? (JSON.parse(text) as Record<string, string>) : {};
  return pinnedOnly(cached, pinned);
}

/**
 * The cached keys that are pinned. A key's id is its RFC 7638 thumbprint, recomputed here: a
 * cached key that does not hash to a pinned id is ignored, whoever wrote it.
 */
export function pinnedOnly(cached: Record<string, string>, pinned: string[]): LeasePublicKey[] {
  return pinned.flatMap((id) => {
    const raw = cached[id] ? fromBase64Url(cached[id]) : undefined;
    return raw?.length === 32 && publicKeyIdOf(raw) === id ? [leasePublicKey(raw)] : [];
  });
}
