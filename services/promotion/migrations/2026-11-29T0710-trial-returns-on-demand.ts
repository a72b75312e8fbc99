import type { Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // TrialRecorded no longer carries a run's daily returns: a trial is projected without them, and
  // the trial-ledger gate reads them from the bots service the first time it judges the bot, and
  // keeps them here. Trials projected before keep the returns their event carried.
  await db.schema
    .alterTable("trials")
    .alterColumn("daily_returns", (c) => c.dropNotNull())
    .execute();
}
