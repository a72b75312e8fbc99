import type { Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Bumped each time a session's lease moves to another host: every event a holder appends must
  // carry the epoch it claimed, so a holder that was paused past its lease cannot write again.
  await db.schema
    .alterTable("bot_deployments")
    .addColumn("lease_epoch", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
}
