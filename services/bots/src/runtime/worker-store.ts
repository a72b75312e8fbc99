import { Kysely, PostgresDialect } from "kysely";
import type { BotsDatabase } from "../store/bots.table.js";
import { BOTS_SCHEMA } from "./record-run.js";

/**
 * Where a backtest's worker writes the results it computed: Postgres, on a connection of its own,
 * so a finished run's curve, returns and trades never pass through the process's event loop.
 * (An embedded PGlite has one connection, the main thread's: its runs are written there.)
 */
export interface WorkerStore {
  postgresUrl: string;
  /** The same deadlines the process's own pool has (SVC_DB_TIMEOUT_MS). */
  timeoutMs: number;
}

let opened: { db: Kysely<BotsDatabase>; close(): Promise<void> } | undefined;

/** The worker's database, opened on its first write and kept for the worker's life. */
export async function workerDb(store: WorkerStore): Promise<Kysely<BotsDatabase>> {
  if (opened) return opened.db;
  const { default: pg } = await import("pg");
  const { timeoutMs } = store;
  const pool = new pg.Pool({
    connectionString: store.postgresUrl,
    // One run at a time per worker: one connection, closed when idle between bursts.
    max: 1,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    query_timeout: timeoutMs + 1_000,
    idle_in_transaction_session_timeout: timeoutMs,
  });
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  const root = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  opened = {
    db: root.withSchema(BOTS_SCHEMA) as unknown as Kysely<BotsDatabase>,
    close: () => root.destroy(),
  };
  return opened.db;
}
