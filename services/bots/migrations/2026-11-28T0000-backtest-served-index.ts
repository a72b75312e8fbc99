import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The queue's fairness asks, for each bot with a queued backtest, when its last run started:
  // one index lookup, however many backtests the bot has run.
  await db.schema
    .createIndex("bot_deployments_backtest_served_idx")
    .on("bot_deployments")
    .columns(["bot_id", "started_at"])
    .where(sql.ref("target"), "=", "backtest")
    .execute();
}
