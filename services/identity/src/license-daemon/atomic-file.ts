// The default import is the fs/promises object itself: the crash test replaces its rename.
import fs from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { basename, dirname, join } from "node:path";

const TEMP_MARK = ".tmp-";

/**
 * Replaces `path` so that a reader, or a crash at any instant, sees the old content or the new,
 * never a mix: write a temp file beside it, fsync it, rename it over the old one, fsync the folder
 * so the rename itself survives a power cut.
 *
 * @example await writeFileAtomic(".data/license/lease.json", text);
 */
export async function writeFileAtomic(path: string, data: string, mode = 0o644): Promise<void> {
  const folder = dirname(path);
  const temp = join(
    folder,
    `${basename(path)}${TEMP_MARK}${process.pid}-${randomBytes(4).toString("hex")}`,
  );
  const file = await fs.open(temp, "wx", mode);
  try {
    await file.writeFile(data);
    await file.sync();
  } finally {
    await file.close();
  }
  await fs.rename(temp, path);
  const dir = await fs.open(folder, "r");
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/** Removes temp files a crash left behind in `folder`; returns their names. */
export async function removeLeftoverTemps(folder: string): Promise<string[]> {
  const names = (await fs.readdir(folder).catch(() => [] as string[])).filter((n) =>
    n.includes(TEMP_MARK),
  );
  await Promise.all(names.map((n) => fs.rm(join(folder, n), { force: true })));
  return names;
}
