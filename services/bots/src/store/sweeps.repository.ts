import { randomUUID } from "node:crypto";
import { sql, type Kysely, type Selectable, type Transaction } from "kysely";
import { keysetAfter, timestampKey } from "@svc/lib/paging";
import { LIVE_BACKTEST_STATES } from "../domain/deployment-status.js";
import { countQueued, QUEUE_LOCK } from "./backtest-queue.repository.js";
import type { BotsDatabase, DeploymentRow, SweepsTable } from "./bots.table.js";

type Db = Kysely<BotsDatabase>;
type Trx = Transaction<BotsDatabase>;
export type SweepRow = Selectable<SweepsTable>;

// Only SQL lives here: sweeps, and their backtests in the backtest queue.

/** One backtest of a sweep as it is queued: what it runs and which combination and fold it is. */
export interface SweepRun {
  /** data_source, start, end and params, as the worker reads them (runClaimedBacktest). */
  request: Record<string, unknown>;
  barsTotal: number;
  index: number | null;
  fold: number;
}

export interface NewSweep {
  botId: string;
  version: number;
  requestKey: string;
  request: Record<string, unknown>;
  combinations: Array<Record<string, unknown>>;
  skipped: number;
  folds: Array<{ is_start: string; is_end: string; oos_end: string }>;
}

export type SweepCreated =
  { sweep: SweepRow; created: boolean } | { full: true; queued: number; runs: number };

/**
 * Records a sweep and queues all its backtests in one transaction, under the queue's lock, so
 * that the queue's bound holds for the sweep as a whole: either every run is queued or none
 * (429 then). A sweep with the same key on the same bot is answered as it is, nothing queued.
 * Walk-forward out-of-sample runs are queued later (advanceWalkForward) but counted now.
 */
export function createSweep(
  db: Db,
  s: NewSweep,
  runs: SweepRun[],
  reserved: number,
  queueMax: number,
  /** Written in the same transaction as a new sweep and its runs (its workload_run start entry). */
  andThen?: (trx: Trx, sweep: SweepRow, runs: number) => Promise<void>,
): Promise<SweepCreated> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${QUEUE_LOCK})`.execute(trx);
    const existing = await findSweepByKey(trx, s.botId, s.requestKey);
    if (existing) return { sweep: existing, created: false };
    const queued = await countQueued(trx);
    if (queued + runs.length + reserved > queueMax)
      return { full: true as const, queued, runs: runs.length + reserved };
    const sweep = await trx
      .insertInto("sweeps")
      .values({
        id: randomUUID(),
        bot_id: s.botId,
        version: s.version,
        request_key: s.requestKey,
        request: JSON.stringify(s.request),
        combinations: JSON.stringify(s.combinations),
        skipped: s.skipped,
        folds: JSON.stringify(s.folds),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await insertRuns(trx, sweep, runs);
    await andThen?.(trx, sweep, runs.length + reserved);
    return { sweep, created: true };
  });
}

/** Inserts in batches: a thousand rows of a dozen columns stay under Postgres's parameter cap. */
const INSERT_BATCH = 500;

async function insertRuns(trx: Trx, sweep: SweepRow, runs: SweepRun[]): Promise<void> {
  for (let at = 0; at < runs.length; at += INSERT_BATCH) {
    await trx
      .insertInto("bot_deployments")
      .values(
        runs.slice(at, at + INSERT_BATCH).map((r) => {
          const id = randomUUID();
          return {
            id,
            bot_id: sweep.bot_id,
            version: sweep.version,
            target: "backtest" as const,
            status: "pending" as const,
            task_id: `bt-${id.slice(0, 8)}`,
            request: JSON.stringify(r.request),
            host: null,
            attempts: 0,
            bars_done: 0,
            bars_total: r.barsTotal,
            sweep_id: sweep.id,
            sweep_index: r.index,
            sweep_fold: r.fold,
          };
        }),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

export function findSweepByKey(
  db: Db | Trx,
  botId: string,
  requestKey: string,
): Promise<SweepRow | undefined> {
  return db
    .selectFrom("sweeps")
    .selectAll()
    .where("bot_id", "=", botId)
    .where("request_key", "=", requestKey)
    .executeTakeFirst();
}

/** One sweep of one bot: an id of another bot's sweep is not found. */
export function findSweep(db: Db, botId: string, id: string): Promise<SweepRow | undefined> {
  return db
    .selectFrom("sweeps")
    .selectAll()
    .where("bot_id", "=", botId)
    .where("id", "=", id)
    .executeTakeFirst();
}

/** The sort keys of a bot's sweeps, newest first: created_at, then id. */
export const SWEEP_KEYS = ["timestamp", "uuid"] as const;

export function listSweeps(
  db: Db,
  botId: string,
  page: { limit: number; before?: readonly string[] },
): Promise<Array<SweepRow & { created_key: string }>> {
  let q = db
    .selectFrom("sweeps")
    .selectAll()
    .select((eb) => timestampKey(eb.ref("created_at")).as("created_key"))
    .where("bot_id", "=", botId);
  if (page.before)
    q = q.where((eb) =>
      keysetAfter([eb.ref("created_at"), eb.ref("id")], page.before!, SWEEP_KEYS, "desc"),
    );
  return q.orderBy("created_at", "desc").orderBy("id", "desc").limit(page.limit).execute();
}

/** Runs of each sweep by status: sweep id -> status -> count. */
export async function sweepStatusCounts(
  db: Db,
  sweepIds: string[],
): Promise<Map<string, Record<string, number>>> {
  const out = new Map<string, Record<string, number>>();
  if (sweepIds.length === 0) return out;
  const rows = await db
    .selectFrom("bot_deployments")
    .select(["sweep_id", "status", (eb) => eb.fn.countAll<string>().as("n")])
    .where("sweep_id", "in", sweepIds)
    .groupBy(["sweep_id", "status"])
    .execute();
  for (const r of rows) {
    const counts = out.get(r.sweep_id!) ?? {};
    counts[r.status] = Number(r.n);
    out.set(r.sweep_id!, counts);
  }
  return out;
}

export type SweepRunRow = Pick<
  DeploymentRow,
  "id" | "status" | "request" | "result_summary" | "error" | "sweep_index" | "sweep_fold"
>;

/** Every backtest of a sweep, by fold then combination (a fold's out-of-sample run last). */
export function sweepRuns(db: Db | Trx, sweepId: string): Promise<SweepRunRow[]> {
  return db
    .selectFrom("bot_deployments")
    .select(["id", "status", "request", "result_summary", "error", "sweep_index", "sweep_fold"])
    .where("sweep_id", "=", sweepId)
    .orderBy("sweep_fold")
    .orderBy(sql`sweep_index nulls last`)
    .execute();
}

/**
 * Cancels a sweep: its live backtests end halted at once (a running one finds its row halted at
 * its next look, stops, and records nothing); returns their task ids, for this process's runs to
 * stop now. Nothing is queued for it afterwards (advanceWalkForward skips a cancelled sweep).
 */
export function cancelSweep(db: Db, sweepId: string): Promise<string[]> {
  return db.transaction().execute(async (trx) => {
    await trx
      .updateTable("sweeps")
      .set({ cancelled_at: sql<Date>`coalesce(cancelled_at, now())` })
      .where("id", "=", sweepId)
      .execute();
    const rows = await trx
      .updateTable("bot_deployments")
      .set({ status: "halted", error: "the sweep was cancelled", updated_at: sql`now()` })
      .where("sweep_id", "=", sweepId)
      .where("status", "in", LIVE_BACKTEST_STATES)
      .returning("task_id")
      .execute();
    return rows.map((r) => r.task_id);
  });
}

/** Sweeps with walk-forward folds not all advanced (and not cancelled), oldest first. */
export async function sweepsToAdvance(db: Db): Promise<string[]> {
  const rows = await db
    .selectFrom("sweeps")
    .select("id")
    .where("advanced_at", "is", null)
    .where("cancelled_at", "is", null)
    .where(sql<boolean>`jsonb_array_length(folds) > 0`)
    .orderBy("created_at")
    .limit(100)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Locks one sweep for its advance, or answers undefined when another process holds it now (it is
 * advancing it) or it needs no advance any more. The lock lasts the transaction.
 */
export function lockSweepToAdvance(trx: Trx, id: string): Promise<SweepRow | undefined> {
  return trx
    .selectFrom("sweeps")
    .selectAll()
    .where("id", "=", id)
    .where("advanced_at", "is", null)
    .where("cancelled_at", "is", null)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
}

/** Queues a fold's out-of-sample run (once: a second one for the fold is ignored). */
export async function queueOutOfSample(
  trx: Trx,
  sweep: SweepRow,
  fold: number,
  run: Omit<SweepRun, "index" | "fold">,
): Promise<void> {
  await insertRuns(trx, sweep, [{ ...run, index: null, fold }]);
}

export async function markSweepAdvanced(trx: Trx, id: string): Promise<void> {
  await trx
    .updateTable("sweeps")
    .set({ advanced_at: sql<Date>`now()` })
    .where("id", "=", id)
    .execute();
}
