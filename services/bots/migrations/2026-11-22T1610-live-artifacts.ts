import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Artifacts the live plane may run, each from one approved promotion request.
  await db.schema
    .createTable("live_artifacts")
    .addColumn("request_id", "text", (c) => c.primaryKey())
    .addColumn("bot_id", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("version_hash", "text", (c) => c.notNull())
    .addColumn("live_eligible", "boolean", (c) => c.notNull())
    .addColumn("activated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("revoked_at", "timestamptz")
    .execute();
}
