import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("bot_deployments")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("bot_id", "uuid", (c) => c.notNull().references("bots.id").onDelete("cascade"))
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("target", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("task_id", "text", (c) => c.notNull().unique())
    .addColumn("request", "jsonb", (c) => c.notNull())
    .addColumn("result_summary", "jsonb")
    .addColumn("error", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint("bot_deployments_target_check", sql`target in ('backtest', 'paper', 'k8s')`)
    .addCheckConstraint(
      "bot_deployments_status_check",
      sql`status in ('pending', 'running', 'success', 'failed', 'halted')`,
    )
    .execute();
  await db.schema
    .createIndex("bot_deployments_bot_idx")
    .on("bot_deployments")
    .columns(["bot_id", "created_at"])
    .execute();

  // Every finished backtest is a trial: the promotion gates count them, never a request.
  await db.schema
    .createTable("trial_ledger")
    .addColumn("trial_id", "uuid", (c) => c.primaryKey())
    .addColumn("bot_id", "uuid", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("spec_hash", "text", (c) => c.notNull())
    .addColumn("strategy_family", "text", (c) => c.notNull())
    .addColumn("parameters", "jsonb", (c) => c.notNull())
    .addColumn("data_source", "text", (c) => c.notNull())
    .addColumn("daily_returns", "jsonb", (c) => c.notNull())
    .addColumn("sharpe", "double precision", (c) => c.notNull())
    .addColumn("recorded_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}
