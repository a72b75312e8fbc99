import { randomUUID } from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import type { BotsDatabase, DeploymentRow } from "./bots.table.js";

type Db = Kysely<BotsDatabase> | Transaction<BotsDatabase>;

/** Only SQL lives here: reads of bot_deployments common to every target, and k8s deployments. */
export function listDeployments(db: Db, botId: string): Promise<DeploymentRow[]> {
  return db
    .selectFrom("bot_deployments")
    .selectAll()
    .where("bot_id", "=", botId)
    .orderBy("created_at", "desc")
    .orderBy("id")
    .execute();
}

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
