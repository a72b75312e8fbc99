import { randomUUID } from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import { keysetAfter, timestampKey } from "@svc/lib/paging";
import type { BotsDatabase, DeploymentRow } from "./bots.table.js";

type Db = Kysely<BotsDatabase> | Transaction<BotsDatabase>;

// Only SQL lives here: reads of bot_deployments common to every target, and k8s deployments.

/** One page of the bot's deployments, newest first, by (created_at, id) descending. */
export function listDeployments(
  db: Db,
  botId: string,
  page: { limit: number; before?: readonly string[] },
): Promise<Array<DeploymentRow & { created_key: string }>> {
  let q = db
    .selectFrom("bot_deployments")
    .selectAll()
    .select((eb) => timestampKey(eb.ref("created_at")).as("created_key"))
    .where("bot_id", "=", botId);
  if (page.before)
    q = q.where((eb) =>
      keysetAfter([eb.ref("created_at"), eb.ref("id")], page.before!, DEPLOYMENT_KEYS, "desc"),
    );
  // Both keys descend, so one row comparison resumes the page and the index serves it backwards.
  return q.orderBy("created_at", "desc").orderBy("id", "desc").limit(page.limit).execute();
}

/** The sort keys of a bot's deployments, newest first: created_at, then id. */
export const DEPLOYMENT_KEYS = ["timestamp", "uuid"] as const;

export function findDeployment(db: Db, taskId: string): Promise<DeploymentRow | undefined> {
  return db
    .selectFrom("bot_deployments")
    .selectAll()
    .where("task_id", "=", taskId)
    .executeTakeFirst();
}

/** One paper session of one bot: a task id of another bot or another target is not found. */
export function findPaperSession(
  db: Db,
  botId: string,
  taskId: string,
): Promise<DeploymentRow | undefined> {
  return db
    .selectFrom("bot_deployments")
    .selectAll()
    .where("task_id", "=", taskId)
    .where("bot_id", "=", botId)
    .where("target", "=", "paper")
    .executeTakeFirst();
}

/** Records a Bot resource applied to a cluster; the cluster's controller runs it from there. */
export function insertK8sDeployment(
  db: Db,
  d: { botId: string; version: number; request: Record<string, unknown> },
): Promise<DeploymentRow> {
  const id = randomUUID();
  return db
    .insertInto("bot_deployments")
    .values({
      id,
      bot_id: d.botId,
      version: d.version,
      target: "k8s",
      status: "pending",
      task_id: `k8s-${id.slice(0, 8)}`,
      request: JSON.stringify(d.request),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Ends the k8s deployments of a fleet's bots that are not ended yet (its runtime was destroyed). */
export async function endFleetWorkloadDeployments(
  db: Db,
  fleet: string,
  reason: string,
): Promise<number> {
  const ended = await db
    .updateTable("bot_deployments")
    .set({ status: "halted", error: reason, updated_at: new Date() })
    .where("target", "=", "k8s")
    .where("status", "in", ["pending", "running", "parked"])
    .where("bot_id", "in", (eb) => eb.selectFrom("bots").select("id").where("fleet", "=", fleet))
    .executeTakeFirst();
  return Number(ended.numUpdatedRows);
}
