import { randomUUID } from "node:crypto";
import { sql, type Kysely, type Transaction } from "kysely";
import { LIVE_SESSION_STATES } from "../domain/deployment-status.js";
import type { BotsDatabase, DeploymentRow } from "./bots.table.js";

// Only SQL lives here: paper-session rows of bot_deployments. A session is held under a lease
// (`host`, renewed at `host_seen_at`); each takeover bumps `lease_epoch`, which every append of
// the holder carries as a fence (events.repository.ts).

type Db = Kysely<BotsDatabase> | Transaction<BotsDatabase>;
const now = () => sql<Date>`now()` as unknown as Date;

/** What a new paper session trades, as its row records it. */
export interface PaperRequest {
  data_source: string;
  speed: number;
  /** The approved allocation whose capital it trades, instead of the spec's initial cash. */
  allocation_request_id?: string;
  initial_cash?: number;
}

/** The row of a new paper session, status running, held by `host` (none: the first runner takes it). */
export function insertPaperSession(
  db: Db,
  s: { botId: string; version: number; request: PaperRequest },
  host: string | null,
): Promise<DeploymentRow> {
  const id = randomUUID();
  return db
    .insertInto("bot_deployments")
    .values({
      id,
      bot_id: s.botId,
      version: s.version,
      target: "paper",
      status: "running",
      task_id: `paper-${id.slice(0, 8)}`,
      request: JSON.stringify(s.request),
      host,
      host_seen_at: host ? now() : null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Task ids of the live paper sessions (running or parked), of one bot or of all. */
export async function liveSessions(db: Db, botId?: string): Promise<string[]> {
  let q = db
    .selectFrom("bot_deployments")
    .select("task_id")
    .where("target", "=", "paper")
    .where("status", "in", LIVE_SESSION_STATES);
  if (botId) q = q.where("bot_id", "=", botId);
  return (await q.orderBy("created_at").execute()).map((r) => r.task_id);
}

/** A session a statement just ended: what its workload_run stop entry names. */
export type EndedSession = Pick<DeploymentRow, "task_id" | "bot_id" | "version">;

/** Ends a live session by decision of the bots service; undefined when it was not live. */
export function endLiveSession(
  db: Db,
  taskId: string,
  status: "success" | "halted",
): Promise<EndedSession | undefined> {
  return db
    .updateTable("bot_deployments")
    .set({ status, error: null, updated_at: now() })
    .where("task_id", "=", taskId)
    .where("status", "in", LIVE_SESSION_STATES)
    .returning(["task_id", "bot_id", "version"])
    .executeTakeFirst();
}

/**
 * Ends a session this host holds that is still live (running or parked); undefined when it is not
 * (the bots service ended it already, or another host holds it).
 */
export function endHeldSession(
  db: Db,
  taskId: string,
  hostId: string,
  status: "success" | "failed" | "halted",
  error: string | null,
): Promise<EndedSession | undefined> {
  return db
    .updateTable("bot_deployments")
    .set({ status, error, updated_at: now() })
    .where("task_id", "=", taskId)
    .where("host", "=", hostId)
    .where("status", "in", LIVE_SESSION_STATES)
    .returning(["task_id", "bot_id", "version"])
    .executeTakeFirst();
}

/**
 * Records a session's status, only while `hostId` holds its lease: a host that lost it writes
 * nothing. `error` undefined leaves the column as it is.
 */
export async function setSessionStatus(
  db: Db,
  taskId: string,
  hostId: string,
  status: DeploymentRow["status"],
  error?: string | null,
): Promise<void> {
  await db
    .updateTable("bot_deployments")
    .set({ status, ...(error !== undefined ? { error } : {}), updated_at: now() })
    .where("task_id", "=", taskId)
    .where("host", "=", hostId)
    .execute();
}

/** Renews this host's lease on every session it holds. */
export async function renewSessionLeases(db: Db, hostId: string): Promise<void> {
  await db
    .updateTable("bot_deployments")
    .set({ host_seen_at: now() })
    .where("host", "=", hostId)
    .execute();
}

/**
 * Claims for `hostId` every live session nobody holds, it holds already, or whose holder fell
 * silent for `leaseSeconds`. A claim from another host bumps the lease epoch, so the previous
 * holder's appends are refused from then on. A row locked by a holder that froze mid-append is
 * skipped, not waited on: the server ends that holder's transaction
 * (idle_in_transaction_session_timeout) and the next pass claims it.
 */
export function claimSessions(
  db: Db,
  hostId: string,
  leaseSeconds: number,
): Promise<DeploymentRow[]> {
  return db
    .updateTable("bot_deployments")
    .set({
      host: hostId,
      host_seen_at: now(),
      lease_epoch:
        sql<string>`case when host = ${hostId} then lease_epoch else lease_epoch + 1 end` as unknown as string,
    })
    .where("task_id", "in", (eb) =>
      eb
        .selectFrom("bot_deployments")
        .select("task_id")
        .where("target", "=", "paper")
        .where("status", "in", LIVE_SESSION_STATES)
        .where((w) =>
          w.or([
            w("host", "is", null),
            w("host", "=", hostId),
            w("host_seen_at", "<", sql<Date>`now() - make_interval(secs => ${leaseSeconds})`),
          ]),
        )
        .forUpdate()
        .skipLocked(),
    )
    .returningAll()
    .execute();
}

/** Status and lease of the named sessions, to see which were ended or taken over elsewhere. */
export function sessionLeases(
  db: Db,
  taskIds: string[],
): Promise<Pick<DeploymentRow, "task_id" | "status" | "host" | "lease_epoch">[]> {
  if (taskIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("bot_deployments")
    .select(["task_id", "status", "host", "lease_epoch"])
    .where("task_id", "in", taskIds)
    .execute();
}

/** Hands sessions back at shutdown: the next host resumes them without waiting for the lease. */
export async function releaseSessions(db: Db, taskIds: string[]): Promise<void> {
  if (taskIds.length === 0) return;
  await db
    .updateTable("bot_deployments")
    .set({ host: null })
    .where("task_id", "in", taskIds)
    .execute();
}
