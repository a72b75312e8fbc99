import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, PostgresDialect } from "kysely";
import { openPgliteOnThread } from "./pglite-on-thread.js";
import { seedDataDir, type PgliteTemplate } from "./pglite-template.js";
import { PrioritisedPgliteDialect } from "./prioritised-pglite-dialect.js";

/**
 * One database handle per process; every service works in its own schema of it, typed by the
 * service (`schemaDb`), so the shared handle itself names no table.
 */
export interface Database {
  db: Kysely<unknown>;
  kind: "postgres" | "pglite";
  /**
   * Postgres's address, for a thread that opens connections of its own (a backtest's worker
   * writes its results itself); unset for PGlite, whose one connection is this handle's.
   */
  url?: string;
  /** A PGlite database that started as a copy of a migrated template instead of an empty one. */
  fromTemplate?: boolean;
  /** Where an embedded database's opening spent its time, ms from the call (for the ready log). */
  openedIn?: { copied?: number; compiled?: number; ready: number };
  close(): Promise<void>;
}

/**
 * Postgres through a `pg` pool when `url` is set, otherwise embedded PGlite (a folder on disk, or
 * memory when `dataDir` is undefined or "memory://"), on a thread of its own. PGlite has a single
 * connection; the dialect hands it to one transaction at a time, so transactions never
 * interleave, and to a waiting request before waiting background work (query-priority.ts).
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
    return { db, kind: "postgres", url: opts.url, close: () => db.destroy() };
  }
  const inMemory = !opts.dataDir || opts.dataDir === "memory://";
  const startParams =
    opts.sharedBuffersMb === undefined
      ? undefined
      : [...PGlite.defaultStartParams, "-c", `shared_buffers=${opts.sharedBuffersMb}MB`];
  const t0 = performance.now();
  let copied: number | undefined;
  let fromTemplate = false;
  if (inMemory) fromTemplate = opts.template !== undefined;
  else {
    if (opts.template) {
      fromTemplate = await seedDataDir(opts.dataDir!, opts.template);
      copied = Math.round(performance.now() - t0);
    }
    mkdirSync(opts.dataDir!, { recursive: true });
  }
  // On a thread of its own: PostgreSQL as WebAssembly runs on the thread that calls it.
  const pglite = await openPgliteOnThread({
    ...(inMemory ? {} : { dataDir: opts.dataDir! }),
    ...(inMemory && opts.template ? { tarball: opts.template.tarball } : {}),
    ...(startParams ? { startParams } : {}),
  });
  const db = new Kysely<unknown>({ dialect: new PrioritisedPgliteDialect(pglite) });
  const openedIn = {
    ...(copied === undefined ? {} : { copied }),
    ...(pglite.openedIn.compiled === undefined ? {} : { compiled: pglite.openedIn.compiled }),
    ready: Math.round(performance.now() - t0),
  };
  return { db, kind: "pglite", fromTemplate, openedIn, close: () => db.destroy() };
}

/** The same database seen through one schema: every table name resolves inside it. */
export function schemaDb<DB>(db: Kysely<unknown>, schema: string): Kysely<DB> {
  return db.withSchema(schema) as unknown as Kysely<DB>;
}
