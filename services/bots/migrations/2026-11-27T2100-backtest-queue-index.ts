import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The backtest queue: accepted runs no process holds yet, claimed oldest first and counted for
  // its bound at every submission, among every backtest and session ever recorded.
  await db.schema
    .createIndex("bot_deployments_backtest_queue_idx")
    .on("bot_deployments")
    .columns(["created_at", "id"])
    .where(sql.ref("target"), "=", "backtest")
    .where(sql.ref("status"), "=", "pending")
    .where(sql.ref("host"), "is", null)
    .execute();
}
