import type { Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // What the trial-ledger gate needs to read a sweep as evidence: the bars a trial ran on (PBO's
  // matrix is the trials on the same bars) and the sweep it was a combination of (a sweep's
  // trials ran other parameters than their version's own, so none of them is "the version's").
  // Trials projected before carry '' for both.
  await db.schema
    .alterTable("trials")
    .addColumn("data_source", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("sweep_id", "text", (c) => c.notNull().defaultTo(""))
    .execute();
}
