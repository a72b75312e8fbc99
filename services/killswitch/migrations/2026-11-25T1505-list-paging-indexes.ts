import type { Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Both lists page by their sort keys (keyset pagination); these indexes, in that order, make
  // the last page cost what the first does. A tie on the time is broken by the second key.
  await db.schema
    .createIndex("kill_switches_engaged_idx")
    .on("kill_switches")
    .columns(["engaged_at", "name"])
    .execute();
  await db.schema
    .createIndex("drills_started_id_idx")
    .on("drills")
    .columns(["started_at", "id"])
    .execute();
  // The (started_at, id) index answers everything the old one did.
  await db.schema.dropIndex("drills_started_at").execute();
}
