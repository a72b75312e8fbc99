import type { Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A backtest keeps its first 100,000 trades (memory stays bounded on any run); this says when
  // it made more.
  await db.schema
    .alterTable("backtest_results")
    .addColumn("trades_truncated", "boolean", (c) => c.notNull().defaultTo(false))
    .execute();
}
