import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { readIfExists, writeFileAtomic } from "./atomic-file.js";

/** What the daemon remembers between runs, to refuse what an offline holder can be fooled with. */
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

export async function readMemory(paths: HolderPaths): Promise<HolderMemory> {
  const text = await readIfExists(paths.memory);
  const fresh: HolderMemory = { highestSerial: 0, lastRunAtMs: 0, revoked: false };
  if (!text) return fresh;
  const m = JSON.parse(text) as Partial<HolderMemory>;
  return { ...fresh, ...m };
}

export async function writeMemory(paths: HolderPaths, m: HolderMemory): Promise<void> {
  await mkdir(paths.dir, { recursive: true });
  await writeFileAtomic(paths.memory, JSON.stringify(m, null, 2) + "\n");
}
