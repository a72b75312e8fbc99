import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // What a finished backtest keeps besides its summary: the curve (bounded: see EquitySeries),
  // its daily returns, and its trades, one row each so that they page by key.
  await db.schema
    .createTable("backtest_results")
    .addColumn("deployment_id", "uuid", (c) =>
      c.primaryKey().references("bot_deployments.id").onDelete("cascade"),
    )
    .addColumn("equity", "jsonb", (c) => c.notNull())
    .addColumn("bars_per_point", "bigint", (c) => c.notNull())
    .addColumn("daily_returns", "jsonb", (c) => c.notNull())
    .addColumn("symbol", "text", (c) => c.notNull())
    .addColumn("trade_count", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("backtest_trades")
    .addColumn("deployment_id", "uuid", (c) =>
      c.notNull().references("bot_deployments.id").onDelete("cascade"),
    )
    .addColumn("number", "integer", (c) => c.notNull())
    .addColumn("side", "text", (c) => c.notNull())
    .addColumn("entry_time", "timestamptz", (c) => c.notNull())
    .addColumn("entry_price", "double precision", (c) => c.notNull())
    .addColumn("exit_time", "timestamptz", (c) => c.notNull())
    .addColumn("exit_price", "double precision", (c) => c.notNull())
    .addColumn("size", "double precision", (c) => c.notNull())
    .addColumn("pnl", "double precision", (c) => c.notNull())
    .addColumn("fees", "double precision", (c) => c.notNull())
    .addColumn("closed", "boolean", (c) => c.notNull())
    .addPrimaryKeyConstraint("backtest_trades_pk", ["deployment_id", "number"])
    .addCheckConstraint("backtest_trades_side_check", sql`side in ('long', 'short')`)
    .execute();
  // Progress of a running backtest: bars done of the total counted when it was accepted, and
  // when it started running (elapsed and time left are computed from these when read).
  await db.schema
    .alterTable("bot_deployments")
    .addColumn("bars_done", "bigint")
    .addColumn("bars_total", "bigint")
    .addColumn("started_at", "timestamptz")
    .execute();
}
