import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
// Drills run off the request path and are judged against their bounds: a drill row exists from
// its start (state running), names the switch it engaged and when that switch lapses by itself,
// and gets its verdict when it ends. Rows from before keep state finished and no verdict.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("drills")
    .addColumn("state", "text", (c) => c.notNull().defaultTo("finished"))
    .addColumn("verdict", "text")
    .addColumn("ended_at", "timestamptz")
    .addColumn("switch_name", "text")
    .addColumn("release_by", "timestamptz")
    .execute();
  await db.schema.createIndex("drills_started_at").on("drills").column("started_at").execute();
  // One drill at a time: a second would time the first one's halt.
  await db.schema
    .createIndex("drills_one_running")
    .on("drills")
    .column("state")
    .unique()
    .where(sql.ref("state"), "=", "running")
    .execute();
}
