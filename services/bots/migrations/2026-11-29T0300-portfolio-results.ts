import type { Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A portfolio's backtest: each symbol's figures and the gaps of its data ({symbols, gaps}).
  // Null for a one-symbol run.
  await db.schema.alterTable("backtest_results").addColumn("portfolio", "jsonb").execute();
  // The symbol of each trade of a portfolio's run; null: the result's one symbol.
  await db.schema.alterTable("backtest_trades").addColumn("symbol", "text").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("backtest_trades").dropColumn("symbol").execute();
  await db.schema.alterTable("backtest_results").dropColumn("portfolio").execute();
}
