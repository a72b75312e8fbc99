import { randomUUID } from "node:crypto";
import { sql, type Kysely, type Transaction } from "kysely";
import { LIVE_BACKTEST_STATES } from "../domain/deployment-status.js";
import type { BotsDatabase, DeploymentRow } from "./bots.table.js";

type Db = Kysely<BotsDatabase>;
/** Raw SQL is not rewritten by the handle's schema: the table is named with it. */
const DEPLOYMENTS = sql.table("bots.bot_deployments");

/**
 * Only SQL lives here: the backtest queue. A queued backtest is a row `pending` that no process
 * holds (`host` null); a process with a free worker claims one (its lease begins), runs it, and
 * a process that dies leaves its rows to be put back in the queue (backtest-recovery.ts).
 */

/** One lock for everyone who adds to the queue, so that its bound holds under a burst. */
export const QUEUE_LOCK = 0x62747175; // "btqu"

export type Enqueued = { row: DeploymentRow; position: number } | { full: true; queued: number };

/**
 * Adds a backtest at the end of the queue, unless `max` already wait: the count and the insert
 * happen under one transaction-scoped lock, so that concurrent submissions cannot all squeeze in.
 */
export function enqueueBacktest(
  db: Db,
  b: { botId: string; version: number; request: Record<string, unknown>; barsTotal: number },
  max: number,
  /** Written in the same transaction as the queued row (its workload_run start entry). */
  andThen?: (trx: Transaction<BotsDatabase>, row: DeploymentRow) => Promise<void>,
): Promise<Enqueued> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${QUEUE_LOCK})`.execute(trx);
    const queued = await countQueued(trx);
    if (queued >= max) return { full: true as const, queued };
    const id = randomUUID();
    const row = await trx
      .insertInto("bot_deployments")
      .values({
        id,
        bot_id: b.botId,
        version: b.version,
        target: "backtest",
        status: "pending",
        task_id: `bt-${id.slice(0, 8)}`,
        request: JSON.stringify(b.request),
        host: null,
        attempts: 0,
        bars_done: 0,
        bars_total: b.barsTotal,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await andThen?.(trx, row);
    return { row, position: queued + 1 };
  });
}

export async function countQueued(db: Db): Promise<number> {
  const { n } = await db
    .selectFrom("bot_deployments")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("target", "=", "backtest")
    .where("status", "=", "pending")
    .where("host", "is", null)
    .executeTakeFirstOrThrow();
  return Number(n);
}

/**
 * Takes the next queued backtest for this process, or none. Fair between bots, round-robin: among
 * the queued runs, one of the bot with the fewest runs held by any process goes first, then the
 * bot served longest ago (whose last run started earliest, or never), oldest first within a bot;
 * so one bot's thirty runs never starve another bot's single one. Two processes claiming at once
 * skip each other's locked row (SKIP LOCKED) instead of waiting or taking it twice.
 */
export async function claimNextBacktest(
  db: Db,
  o: { hostId: string; maxAttempts: number },
): Promise<DeploymentRow | undefined> {
  const { rows } = await sql<DeploymentRow>`
    with waiting as (
      select distinct bot_id from ${DEPLOYMENTS}
      where target = 'backtest' and status = 'pending' and host is null
    ), bots as (
      -- Per waiting bot, two index lookups, never a scan of every backtest it ever ran.
      select w.bot_id,
        (select count(*) from ${DEPLOYMENTS} b
          where b.bot_id = w.bot_id and b.target = 'backtest'
            and b.status in ('pending', 'running') and b.host is not null) as busy,
        (select max(s.started_at) from ${DEPLOYMENTS} s
          where s.bot_id = w.bot_id and s.target = 'backtest') as served
      from waiting w
    ), next as (
      select q.id from ${DEPLOYMENTS} q join bots on bots.bot_id = q.bot_id
      where q.target = 'backtest' and q.status = 'pending' and q.host is null
        and q.attempts < ${o.maxAttempts}
      order by bots.busy, bots.served nulls first, q.created_at, q.id
      limit 1
      for update of q skip locked
    )
    update ${DEPLOYMENTS} d
    set host = ${o.hostId}, host_seen_at = now(), attempts = d.attempts + 1
    from next where d.id = next.id
    returning d.*`.execute(db);
  return rows[0];
}

/**
 * Puts back in the queue the live backtests whose holder fell silent for the lease (a process
 * that died), or running with no holder named (rows from before leases), except runs of this process whose lease merely lapsed (`runningHere`); those
 * started `maxAttempts` times are left to failExhaustedBacktests. They keep their place: their
 * arrival time is unchanged.
 */
export async function requeueOrphanedBacktests(
  db: Db,
  o: { runningHere: string[]; leaseSeconds: number; maxAttempts: number },
): Promise<string[]> {
  let q = db
    .updateTable("bot_deployments")
    .set({ host: null, status: "pending", bars_done: 0 })
    .where("target", "=", "backtest")
    .where("status", "in", LIVE_BACKTEST_STATES)
    // Not those queued already: pending and held by no one.
    .where((eb) => eb.or([eb("status", "=", "running"), eb("host", "is not", null)]))
    .where((eb) =>
      eb.or([
        eb("host", "is", null),
        eb("host_seen_at", "is", null),
        eb("host_seen_at", "<", sql<Date>`now() - make_interval(secs => ${o.leaseSeconds})`),
      ]),
    )
    .where("attempts", "<", o.maxAttempts);
  if (o.runningHere.length > 0) q = q.where("task_id", "not in", o.runningHere);
  return (await q.returning("task_id").execute()).map((r) => r.task_id);
}

/**
 * Hands a backtest held here back to the queue, its start not counted: it could not run for a
 * reason of the moment (the database was out of connections), not because of what it is.
 */
export async function requeueBacktest(db: Db, taskId: string, hostId: string): Promise<boolean> {
  const done = await db
    .updateTable("bot_deployments")
    .set((eb) => ({
      host: null,
      status: "pending",
      bars_done: 0,
      attempts: sql<number>`greatest(${eb.ref("attempts")} - 1, 0)`,
    }))
    .where("task_id", "=", taskId)
    .where("host", "=", hostId)
    .where("status", "in", LIVE_BACKTEST_STATES)
    .executeTakeFirst();
  return Number(done.numUpdatedRows) > 0;
}

/** Queue positions (1 = next in arrival order) of those of `ids` that are queued. */
export async function queuePositions(db: Db, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const { rows } = await sql<{ id: string; position: string }>`
    select id, position from (
      select id, row_number() over (order by created_at, id) as position from ${DEPLOYMENTS}
      where target = 'backtest' and status = 'pending' and host is null
    ) q where id in (${sql.join(ids)})`.execute(db);
  return new Map(rows.map((r) => [r.id, Number(r.position)]));
}
