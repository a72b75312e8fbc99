import {
  sql,
  type Expression,
  type ExpressionBuilder,
  type Kysely,
  type SqlBool,
  type Transaction,
} from "kysely";
import { LIVE_BACKTEST_STATES } from "../domain/deployment-status.js";
import type { BotsDatabase, DeploymentRow } from "./bots.table.js";

type Db = Kysely<BotsDatabase>;
const now = () => sql<Date>`now()` as unknown as Date;

/**
 * Only SQL lives here: backtest rows of bot_deployments. Each names the process that holds it
 * (`host`) and when that process last said so (`host_seen_at`): a lease, so that a live process
 * re-runs the backtest of one that died (runtime/backtest-recovery.ts). Rows enter, and are
 * claimed, through the queue (backtest-queue.repository.ts).
 */

/**
 * Running, if still this host's and not halted before it started; false otherwise. A run taken
 * over starts again from its first bar: its progress too.
 */
export async function markBacktestRunning(
  db: Db,
  id: string,
  hostId: string,
  barsTotal: number,
): Promise<boolean> {
  const updated = await db
    .updateTable("bot_deployments")
    .set({
      status: "running",
      updated_at: now(),
      started_at: now(),
      bars_done: 0,
      bars_total: barsTotal,
    })
    .where("id", "=", id)
    .where("host", "=", hostId)
    .where("status", "in", LIVE_BACKTEST_STATES)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** The result, only onto a row still running and held here; false when a halt or takeover won. */
export async function finishBacktest(
  trx: Transaction<BotsDatabase>,
  id: string,
  hostId: string,
  summary: Record<string, unknown>,
  barsDone: number,
): Promise<boolean> {
  const done = await trx
    .updateTable("bot_deployments")
    .set({
      status: "success",
      result_summary: JSON.stringify(summary),
      bars_done: barsDone,
      updated_at: now(),
    })
    .where("id", "=", id)
    .where("status", "=", "running")
    .where("host", "=", hostId)
    .executeTakeFirst();
  return Number(done.numUpdatedRows) > 0;
}

/** Ends a backtest still live and held here (a halt or a takeover decided already otherwise). */
export async function endBacktest(
  db: Db,
  hostId: string,
  taskId: string,
  status: "failed" | "halted",
  error: string,
): Promise<EndedRun | undefined> {
  return db
    .updateTable("bot_deployments")
    .set({ status, error, updated_at: now() })
    .where("task_id", "=", taskId)
    .where("host", "=", hostId)
    .where("status", "in", LIVE_BACKTEST_STATES)
    .returning(["id", "task_id", "bot_id", "version"])
    .executeTakeFirst();
}

/** A run a statement just ended: what its workload_run stop entry names. */
export type EndedRun = Pick<DeploymentRow, "id" | "task_id" | "bot_id" | "version">;

/**
 * Writes a running backtest's progress, if this process still holds it (not halted, not taken
 * over): one statement both reports and asks, so progress costs the run no extra round trip.
 */
export async function reportBacktestProgress(
  db: Db,
  id: string,
  hostId: string,
  barsDone: number,
): Promise<boolean> {
  const updated = await db
    .updateTable("bot_deployments")
    .set({ bars_done: barsDone })
    .where("id", "=", id)
    .where("status", "=", "running")
    .where("host", "=", hostId)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** Halts every live backtest wherever it runs; returns them. */
export function haltLiveBacktests(db: Db, reason: string): Promise<EndedRun[]> {
  return db
    .updateTable("bot_deployments")
    .set({ status: "halted", error: reason, updated_at: now() })
    .where("target", "=", "backtest")
    .where("status", "in", LIVE_BACKTEST_STATES)
    .returning(["id", "task_id", "bot_id", "version"])
    .execute();
}

/** Keeps the lease of every backtest this process still runs. */
export async function renewBacktestLeases(
  db: Db,
  hostId: string,
  taskIds: string[],
): Promise<void> {
  if (taskIds.length === 0) return;
  await db
    .updateTable("bot_deployments")
    .set({ host_seen_at: now() })
    .where("host", "=", hostId)
    .where("task_id", "in", taskIds)
    .execute();
}

/** Ends, failed with `error`, the orphans already started `maxAttempts` times. */
export async function failExhaustedBacktests(
  db: Db,
  o: { leaseSeconds: number; maxAttempts: number; error: string },
): Promise<EndedRun[]> {
  return db
    .updateTable("bot_deployments")
    .set({ status: "failed", error: o.error, host: null, updated_at: now() })
    .where(orphaned(o.leaseSeconds))
    .where("attempts", ">=", o.maxAttempts)
    .returning(["id", "task_id", "bot_id", "version"])
    .execute();
}

/** A live backtest whose holder is silent, or that names none (rows from before leases). */
function orphaned(leaseSeconds: number) {
  return (eb: ExpressionBuilder<BotsDatabase, "bot_deployments">): Expression<SqlBool> =>
    eb.and([
      eb("target", "=", "backtest"),
      eb("status", "in", LIVE_BACKTEST_STATES),
      eb.or([
        eb("host", "is", null),
        eb("host_seen_at", "is", null),
        eb("host_seen_at", "<", sql<Date>`now() - make_interval(secs => ${leaseSeconds})`),
      ]),
    ]);
}
