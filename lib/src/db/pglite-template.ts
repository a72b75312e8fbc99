import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { cp } from "node:fs/promises";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, type Migration } from "kysely";
import { PGliteDialect } from "kysely-pglite-dialect";
import { withDeadline } from "../deadline/index.js";
import { migrateSchema } from "./migrate-schema.js";

/** One schema and every migration its owner runs on it at start. */
export interface SchemaMigrations {
  schema: string;
  migrations: Record<string, Migration>;
}

/** A migrated PGlite database kept to seed fresh ones: a data folder and the same as a tarball. */
export interface PgliteTemplate {
  key: string;
  /** A data folder to copy (a cleanly shut down PGlite data directory). */
  dataDir: string;
  /** The same folder as PGlite's `loadDataDir` tarball, for a database in memory. */
  tarball: string;
  /**
   * A copy of the data folder made ahead of time (`refillSpare`), which the next new data folder
   * on the same file system takes by a rename: the copy, about 600 files, is then off that start.
   */
  spare: string;
}

/**
 * The template's name: the PGlite build and every migration's name and code, so a template made
 * by other migrations (older, newer or edited) is never found, and a changed PGlite never reads
 * a folder an older one wrote.
 */
export function templateKey(sets: SchemaMigrations[]): string {
  const h = createHash("sha256").update(`pglite ${pgliteVersion()}\n${TEMPLATE_LAYOUT}\n`);
  for (const { schema, migrations } of [...sets].sort((a, b) => a.schema.localeCompare(b.schema))) {
    h.update(`schema ${schema}\n`);
    for (const [name, m] of Object.entries(migrations))
      h.update(`${name}\n${String(m.up)}\n${String(m.down ?? "")}\n`);
  }
  return h.digest("hex").slice(0, 20);
}

/** What a template holds besides the migrations; changed, every template is built again. */
const TEMPLATE_LAYOUT = "the postgres database only (no template0, template1)";

/**
 * The template for these migrations under `root`, built first when it is missing (a fresh PGlite
 * that runs only the migrations, so no row a start writes ends up in it). Concurrent builders each
 * build apart and the first rename wins.
 */
export async function ensureTemplate(
  root: string,
  sets: SchemaMigrations[],
): Promise<PgliteTemplate> {
  const key = templateKey(sets);
  const dir = join(root, key);
  const template = {
    key,
    dataDir: join(dir, "pgdata"),
    tarball: join(dir, "pgdata.tar"),
    spare: join(dir, "spare"),
  };
  if (existsSync(join(template.dataDir, "PG_VERSION")) && existsSync(template.tarball))
    return template;
  mkdirSync(root, { recursive: true });
  const building = join(root, `.building-${key}-${process.pid}-${randomBytes(4).toString("hex")}`);
  try {
    mkdirSync(building);
    const pglite = new PGlite(join(building, "pgdata"));
    const db = new Kysely<unknown>({ dialect: new PGliteDialect(pglite) });
    try {
      for (const { schema, migrations } of sets) await migrateSchema(db, schema, migrations);
      await dropTemplateDatabases(pglite);
      // The tarball is taken after a checkpoint so a database loaded from it starts clean.
      await pglite.query("checkpoint");
      const tar = await pglite.dumpDataDir("none");
      writeFileSync(join(building, "pgdata.tar"), Buffer.from(await tar.arrayBuffer()));
    } finally {
      // Closing shuts PostgreSQL down cleanly: the folder is then safe to copy.
      await db.destroy();
    }
    publish(building, dir);
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return template;
}

/**
 * initdb's template0 and template1, which only CREATE DATABASE reads and the platform never runs:
 * half of a new cluster's 1,200 files. Creating a file is what a copy of the template spends its
 * time on (about 1 ms each on a VM's disk), so a template without them copies in half the time.
 */
async function dropTemplateDatabases(pglite: PGlite): Promise<void> {
  for (const name of ["template0", "template1"]) {
    await pglite.exec(`ALTER DATABASE ${name} IS_TEMPLATE false`);
    await pglite.exec(`DROP DATABASE ${name}`);
  }
}

/**
 * Fills `dataDir` with the template's data folder when it is missing or empty; false when it
 * already holds something (its own database, or files PGlite will refuse). It takes the
 * template's spare when there is one (a rename), and copies otherwise. The copy lands under a
 * temporary name first: an interrupted copy never looks like a database. Asynchronous, so a start
 * copies while it loads its code.
 */
export async function seedDataDir(dataDir: string, template: PgliteTemplate): Promise<boolean> {
  if (existsSync(dataDir)) {
    if (readdirSync(dataDir).length > 0) return false;
    if (!removeEmptyFolder(dataDir)) return false;
  }
  mkdirSync(dirname(dataDir), { recursive: true });
  removeAbandonedCopies(dataDir);
  if (takeSpare(template, dataDir)) return true;
  const copying = `${dataDir}.seeding-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    await copyFolder(template.dataDir, copying);
    if (existsSync(dataDir)) rmdirSync(dataDir);
    renameSync(copying, dataDir);
  } finally {
    rmSync(copying, { recursive: true, force: true });
  }
  return true;
}

/**
 * The copy lands beside the data folder and replaces it. An empty folder that cannot be replaced,
 * such as a volume's mount point (EBUSY) or a folder in a parent this user may not write (EACCES,
 * EPERM), is left as it is: false, and the database starts in it without the template
 * (PostgreSQL's initdb and every migration, slower but whole).
 */
function removeEmptyFolder(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch (err) {
    if (["EBUSY", "EACCES", "EPERM"].includes((err as NodeJS.ErrnoException).code ?? ""))
      return false;
    throw err;
  }
}

/**
 * Moves the template's spare to `dataDir`, which does not exist; false when there is no spare (not
 * made yet, or another start took it first) or it is on another file system.
 */
function takeSpare(template: PgliteTemplate, dataDir: string): boolean {
  try {
    renameSync(template.spare, dataDir);
    return true;
  } catch {
    return false;
  }
}

/** A spare being made: `done` settles when it is in place (or could not be made). */
export interface SpareRefill {
  done: Promise<void>;
  /** Stops the copy and removes what it wrote: a process closing does not wait for it. */
  cancel(): void;
}

/**
 * Makes the template's spare when there is none: a copy of its data folder, under a temporary name
 * until whole, so the next new data folder starts without copying. Meant for after a start is
 * ready, when the disk's work no longer holds anyone up. A failure, or a system without `cp`,
 * leaves no spare, and the next start copies as before.
 */
export function refillSpare(template: PgliteTemplate): SpareRefill {
  const stop = new AbortController();
  const cancel = () => stop.abort();
  if (existsSync(template.spare)) return { done: Promise.resolve(), cancel };
  removeAbandonedCopies(template.spare);
  const copying = `${template.spare}.seeding-${process.pid}-${randomBytes(4).toString("hex")}`;
  // The system's cp only: Node's own copy cannot be stopped, and a closing process waits for this.
  const done = systemCopy(template.dataDir, copying, stop.signal)
    .then((copied) => {
      if (!copied || stop.signal.aborted) return;
      // Another process's spare may have landed first: a rename onto it fails, and ours goes.
      renameSync(copying, template.spare);
    })
    .catch(() => undefined)
    .finally(() => rmSync(copying, { recursive: true, force: true }));
  return { done, cancel };
}

/**
 * Removes the half-made copies a start killed mid-copy left beside `dataDir` (a template's worth
 * of disk each): those of a process that is gone. A live process's copy is its own business.
 */
function removeAbandonedCopies(dataDir: string): void {
  const prefix = `${basename(dataDir)}.seeding-`;
  for (const name of readdirSync(dirname(dataDir))) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length).split("-")[0]);
    if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) continue;
    rmSync(join(dirname(dataDir), name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Copies a folder to a path that does not exist yet. The system's `cp` copies in a process of its
 * own, off this thread, which meanwhile loads the platform's code: a template is about 600 files,
 * and Node's own recursive copy spent about 0.3 s of this thread on twice as many (load 9). Where
 * there is no `cp` (Windows) or it fails, Node's copy runs instead and reports the failure with
 * its error code (ENOSPC, EACCES), which a start turns into advice.
 */
async function copyFolder(from: string, to: string): Promise<void> {
  if (await systemCopy(from, to)) return;
  rmSync(to, { recursive: true, force: true });
  // A copy that hangs (a stalled disk) fails the start with its cause rather than holding it.
  await withDeadline(
    cp(from, to, { recursive: true }),
    COPY_TIMEOUT_MS,
    "copying the PGlite template",
  );
}

/**
 * The system's `cp -R`, within COPY_TIMEOUT_MS and until `signal` aborts it; false where there is
 * none (Windows) or it failed.
 */
function systemCopy(from: string, to: string, signal?: AbortSignal): Promise<boolean> {
  if (process.platform === "win32") return Promise.resolve(false);
  return new Promise((done) => {
    execFile("cp", ["-R", "--", from, to], { timeout: COPY_TIMEOUT_MS, signal }, (err) =>
      done(!err),
    );
  });
}
const COPY_TIMEOUT_MS = 120_000;

function publish(building: string, dir: string): void {
  try {
    renameSync(building, dir);
  } catch (err) {
    // Another process published the same template first: theirs is as good as ours.
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "ENOTEMPTY" && code !== "EEXIST") throw err;
  }
}

let version: string | undefined;
function pgliteVersion(): string {
  if (version) return version;
  const require = createRequire(import.meta.url);
  // The package's entry is dist/index.cjs; its package.json is one folder up.
  const entry = require.resolve("@electric-sql/pglite");
  const pkg = JSON.parse(readFileSync(join(dirname(entry), "..", "package.json"), "utf8")) as {
    version: string;
  };
  version = pkg.version;
  return version;
}
