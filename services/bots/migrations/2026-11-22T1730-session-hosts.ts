import type { Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Which process hosts a paper session, and when it last said so: a lease, so that two runner
  // processes never run one session and a dead one's sessions are taken over.
  await db.schema.alterTable("bot_deployments").addColumn("host", "text").execute();
  await db.schema.alterTable("bot_deployments").addColumn("host_seen_at", "timestamptz").execute();
}
