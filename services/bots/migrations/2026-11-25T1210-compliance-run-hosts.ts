import type { Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The process running a compliance run and when it last said so, as backtests have: a run
  // whose process died is ended failed once the lease lapses, rather than staying running.
  await db.schema
    .alterTable("compliance_runs")
    .addColumn("host", "text")
    .addColumn("host_seen_at", "timestamptz")
    .execute();
}
