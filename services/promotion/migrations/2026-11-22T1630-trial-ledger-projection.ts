import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The TrialLedger as the bots service announces it; the gates count and recompute from it.
  await db.schema
    .createTable("trials")
    .addColumn("trial_id", "text", (c) => c.primaryKey())
    .addColumn("bot_id", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("spec_hash", "text", (c) => c.notNull())
    .addColumn("strategy_family", "text", (c) => c.notNull())
    .addColumn("daily_returns", "jsonb", (c) => c.notNull())
    .addColumn("recorded_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex("trials_bot_idx").on("trials").column("bot_id").execute();
}
