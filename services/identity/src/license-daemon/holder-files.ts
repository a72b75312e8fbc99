import { mkdir } from "node:fs/promises";
import type { HolderMemory, HolderPaths } from "@svc/lib/license";
import { writeFileAtomic } from "./atomic-file.js";

export async function writeMemory(paths: HolderPaths, m: HolderMemory): Promise<void> {
  await mkdir(paths.dir, { recursive: true });
  await writeFileAtomic(paths.memory, JSON.stringify(m, null, 2) + "\n");
}
