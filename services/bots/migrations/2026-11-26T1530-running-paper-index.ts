import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A drill's roster pages through the bots with a paper session running now, by bot id: a
  // handful of rows among every backtest and ended session, read in the order of the page.
  await db.schema
    .createIndex("bot_deployments_running_paper_idx")
    .on("bot_deployments")
    .columns(["bot_id", "task_id"])
    .where(sql.ref("target"), "=", "paper")
    .where(sql.ref("status"), "=", "running")
    .execute();
}
