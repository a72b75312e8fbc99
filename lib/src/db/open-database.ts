import { mkdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, PostgresDialect } from "kysely";
import { PGliteDialect } from "kysely-pglite-dialect";
import { seedDataDir, templateTarball, type PgliteTemplate } from "./pglite-template.js";

/**
 * One database handle per process; every service works in its own schema of it, typed by the
 * service (`schemaDb`), so the shared handle itself names no table.
 */
export interface Database {
  db: Kysely<unknown>;
  kind: "postgres" | "pglite";
  /** A PGlite database that started as a copy of a migrated template instead of an empty one. */
  fromTemplate?: boolean;
  /** Where an embedded database's opening spent its time, ms from the call (for the ready log). */
  openedIn?: { copied?: number; compiled?: number; ready: number };
  close(): Promise<void>;
}

/**
 * Postgres through a `pg` pool when `url` is set, otherwise embedded PGlite (a folder on disk, or
 * memory when `dataDir` is undefined or "memory://"). PGlite has a single connection; the dialect
 * hands it to one transaction at a time, so transactions never interleave.
 *
 * With a `template`, a PGlite database that does not exist yet starts as a copy of it (its data
 * folder, or its tarball in memory) instead of an empty PostgreSQL cluster: no initdb, and
 * the migrations the template already ran are not run again.
 *
 * @example const { db } = await openDatabase({ url: process.env.SVC_DATABASE_URL });
 */
export async function openDatabase(opts: {
  url?: string;
  dataDir?: string;
  timeoutMs?: number;
  template?: PgliteTemplate;
  /** PostgreSQL's shared_buffers of an embedded PGlite, in MiB (its default is 128). */
  sharedBuffersMb?: number;
}): Promise<Database> {
  if (opts.url) {
    const timeoutMs = opts.timeoutMs ?? 10_000;
    // Imported here: an embedded database never loads the Postgres client.
    const { default: pg } = await import("pg");
    // Three deadlines: taking a connection, the server's own statement timeout (a lock wait ends
    // too), and the client's read timeout for a server that is stopped with its socket open.
    const pool = new pg.Pool({
      connectionString: opts.url,
      max: 10,
      connectionTimeoutMillis: timeoutMs,
      statement_timeout: timeoutMs,
      query_timeout: timeoutMs + 1_000,
      // A client frozen inside a transaction (SIGSTOP, a long GC) must not hold its row locks for
      // ever: the server ends its transaction, and a runner's lease can be taken over.
      idle_in_transaction_session_timeout: timeoutMs,
    });
    // An idle client's error (server restart) must not crash the process; the pool replaces it.
    pool.on("error", () => {});
    // A connection the server ends while it is checked out (the idle-in-transaction timeout after
    // a freeze) fails its query; without a listener its 'error' event would crash the process.
    pool.on("connect", (client) => client.on("error", () => {}));
    const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: "postgres", close: () => db.destroy() };
  }
  const inMemory = !opts.dataDir || opts.dataDir === "memory://";
  const startParams =
    opts.sharedBuffersMb === undefined
      ? undefined
      : [...PGlite.defaultStartParams, "-c", `shared_buffers=${opts.sharedBuffersMb}MB`];
  // Compiled while the template's copy runs, not after it, when PGlite would start to. Should it
  // fail (a file PGlite could not read either), PGlite reads and compiles its own as before.
  const t0 = performance.now();
  const since = () => Math.round(performance.now() - t0);
  let compiled: number | undefined;
  let copied: number | undefined;
  const compiling = compilePgliteWasm().then(
    (m) => ((compiled = since()), m),
    () => undefined,
  );
  const wasm = async () => {
    const pgliteWasmModule = await compiling;
    return pgliteWasmModule ? { pgliteWasmModule } : {};
  };
  let fromTemplate = false;
  let pglite: PGlite;
  if (inMemory) {
    fromTemplate = opts.template !== undefined;
    pglite = new PGlite({
      ...(startParams ? { startParams } : {}),
      ...(opts.template ? { loadDataDir: templateTarball(opts.template) } : {}),
      ...(await wasm()),
    });
  } else {
    if (opts.template) {
      fromTemplate = await seedDataDir(opts.dataDir!, opts.template);
      copied = since();
    }
    mkdirSync(opts.dataDir!, { recursive: true });
    pglite = new PGlite(opts.dataDir, {
      ...(startParams ? { startParams } : {}),
      ...(await wasm()),
    });
  }
  await pglite.waitReady;
  const db = new Kysely<unknown>({ dialect: new PGliteDialect(pglite) });
  const openedIn = {
    ...(copied === undefined ? {} : { copied }),
    ...(compiled === undefined ? {} : { compiled }),
    ready: since(),
  };
  return { db, kind: "pglite", fromTemplate, openedIn, close: () => db.destroy() };
}

/**
 * The PostgreSQL of the installed PGlite as a compiled WebAssembly module, which PGlite takes
 * instead of reading and compiling its own copy (the same file: its package resolves here).
 */
function compilePgliteWasm(): Promise<WebAssembly.Module> {
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite");
  return readFile(join(dirname(entry), "pglite.wasm")).then((bytes) => webAssembly.compile(bytes));
}
// Node's global; the types of this project's libraries declare WebAssembly's types, not the value.
const webAssembly = (
  globalThis as unknown as {
    WebAssembly: { compile(bytes: Uint8Array): Promise<WebAssembly.Module> };
  }
).WebAssembly;

/** The same database seen through one schema: every table name resolves inside it. */
export function schemaDb<DB>(db: Kysely<unknown>, schema: string): Kysely<DB> {
  return db.withSchema(schema) as unknown as Kysely<DB>;
}
