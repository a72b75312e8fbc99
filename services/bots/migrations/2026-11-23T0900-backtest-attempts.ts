import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // How many processes have started a backtest: a run that keeps dying with its process (one that
  // crashes it, say) is given up after a few, so it still ends.
  await db.schema
    .alterTable("bot_deployments")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  // Every bots-service process looks for orphaned backtests every few seconds.
  await db.schema
    .createIndex("bot_deployments_live_idx")
    .on("bot_deployments")
    .columns(["target", "status"])
    .where(sql.ref("status"), "in", ["pending", "running"])
    .execute();
}
