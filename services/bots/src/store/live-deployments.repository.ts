import { randomUUID } from "node:crypto";
import { sql, type Kysely, type Transaction } from "kysely";
import { LIVE_SESSION_STATES } from "../domain/deployment-status.js";
import type { BotsDatabase, DeploymentRow } from "./bots.table.js";

// Only SQL lives here: the rows of runners at a venue (targets live and venue_paper, and the k8s
// row a runner workload holds). A runner trades only under a lease (`host`, renewed at
// `host_seen_at`); each takeover bumps `lease_epoch`, which every append carries as a fence
// (events.repository.ts), so two runners of one deployment never both write or trade.

type Db = Kysely<BotsDatabase> | Transaction<BotsDatabase>;
const now = () => sql<Date>`now()` as unknown as Date;
export const VENUE_TARGETS = ["live", "venue_paper"] as const;
export type VenueTarget = (typeof VENUE_TARGETS)[number];

/** What a runner at a venue needs to start again after a restart: the token it verifies. */
export interface VenueRequest {
  approved_promotion: string;
}

/** The row of a new runner at a venue, running and held by nobody yet (the first claim takes it). */
export function insertVenueDeployment(
  db: Db,
  d: { botId: string; version: number; target: VenueTarget; request: VenueRequest },
): Promise<DeploymentRow> {
  const id = randomUUID();
  return db
    .insertInto("bot_deployments")
    .values({
      id,
      bot_id: d.botId,
      version: d.version,
      target: d.target,
      status: "running",
      task_id: `${d.target === "live" ? "live" : "vpaper"}-${id.slice(0, 8)}`,
      request: JSON.stringify(d.request),
      host: null,
      host_seen_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The bot's running deployment at a venue (live or venue_paper), if any. */
export async function runningVenueDeployment(db: Db, botId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("bot_deployments")
    .select("task_id")
    .where("bot_id", "=", botId)
    .where("target", "in", VENUE_TARGETS)
    .where("status", "in", LIVE_SESSION_STATES)
    .executeTakeFirst();
  return row?.task_id;
}

/**
 * Claims for `hostId` the named deployments (or, with none named, every running one at a venue)
 * that nobody holds, it holds already, or whose holder fell silent for `leaseSeconds`. A claim
 * from another host bumps the epoch, so the previous holder's appends are refused from then on.
 * A row another claim has locked is skipped, not waited on: one claimant wins, the other waits
 * for the next pass.
 */
export function claimVenueDeployments(
  db: Db,
  hostId: string,
  leaseSeconds: number,
  taskIds?: string[],
): Promise<DeploymentRow[]> {
  return db
    .updateTable("bot_deployments")
    .set({
      host: hostId,
      host_seen_at: now(),
      lease_epoch:
        sql<string>`case when host = ${hostId} then lease_epoch else lease_epoch + 1 end` as unknown as string,
    })
    .where("task_id", "in", (eb) => {
      let q = eb
        .selectFrom("bot_deployments")
        .select("task_id")
        .where("status", "in", [...LIVE_SESSION_STATES, "pending"])
        .where((w) =>
          w.or([
            w("host", "is", null),
            w("host", "=", hostId),
            w("host_seen_at", "<", sql<Date>`now() - make_interval(secs => ${leaseSeconds})`),
          ]),
        );
      q = taskIds ? q.where("task_id", "in", taskIds) : q.where("target", "in", VENUE_TARGETS);
      return q.forUpdate().skipLocked();
    })
    .returningAll()
    .execute();
}

/**
 * Renews one lease only while `hostId` still holds it at `epoch`; false when it moved (the
 * holder must stop trading at once) or the deployment ended.
 */
export async function renewVenueLease(
  db: Db,
  taskId: string,
  hostId: string,
  epoch: string,
): Promise<boolean> {
  const r = await db
    .updateTable("bot_deployments")
    .set({ host_seen_at: now() })
    .where("task_id", "=", taskId)
    .where("host", "=", hostId)
    .where("lease_epoch", "=", epoch)
    .where("status", "in", [...LIVE_SESSION_STATES, "pending"])
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Hands a lease back (a clean stop): the next claimant starts at once instead of waiting. */
export async function releaseVenueLease(db: Db, taskId: string, hostId: string): Promise<void> {
  await db
    .updateTable("bot_deployments")
    .set({ host: null })
    .where("task_id", "=", taskId)
    .where("host", "=", hostId)
    .execute();
}

/** Records a runner's end, only while `hostId` holds its lease. */
export async function setVenueStatus(
  db: Db,
  taskId: string,
  hostId: string,
  status: DeploymentRow["status"],
  error: string | null,
): Promise<void> {
  await db
    .updateTable("bot_deployments")
    .set({ status, error, updated_at: now() })
    .where("task_id", "=", taskId)
    .where("host", "=", hostId)
    // An ended deployment stays ended: a kill switch's park or release finishing after a halt by
    // request must not turn the row back into one a runner is started for.
    .where("status", "in", ["pending", "running", "parked"])
    .execute();
}

/** The task id of the bot's newest k8s deployment not ended: the row its runner workload holds. */
export async function workloadDeploymentOf(db: Db, botId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("bot_deployments")
    .select("task_id")
    .where("bot_id", "=", botId)
    .where("target", "=", "k8s")
    .where("status", "in", ["pending", "running"])
    .orderBy("created_at", "desc")
    .executeTakeFirst();
  return row?.task_id;
}

/** Ends the running deployments at a venue of one bot (or of all): status halted with `reason`. */
export async function endVenueDeployments(
  db: Db,
  botId: string | undefined,
  reason: string,
): Promise<string[]> {
  let q = db
    .updateTable("bot_deployments")
    .set({ status: "halted", error: reason, updated_at: now() })
    .where("target", "in", VENUE_TARGETS)
    .where("status", "in", LIVE_SESSION_STATES);
  if (botId) q = q.where("bot_id", "=", botId);
  return (await q.returning("task_id").execute()).map((r) => r.task_id);
}
