import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A paper session's sandboxed strategy state (ctx.state, its lookback, its standing targets) as
  // of the last bar whose events were appended, written in the transaction of those events: a
  // session resumed after a crash starts its strategy from it. One row per session, replaced
  // each bar; its own table so that listing deployments never reads it.
  await db.schema
    .createTable("session_strategy_state")
    .addColumn("task_id", "text", (c) =>
      c.primaryKey().references("bot_deployments.task_id").onDelete("cascade"),
    )
    .addColumn("bar", "integer", (c) => c.notNull())
    // JSON text, kept byte for byte (numbers round-trip exactly).
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // A code strategy's ctx.log lines of a backtest ([{time, level, message, fields?}], JSON text,
  // at most the run's limit of lines) and how many past that limit it dropped.
  await db.schema
    .alterTable("backtest_results")
    .addColumn("strategy_logs", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("strategy_logs_dropped", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
}
