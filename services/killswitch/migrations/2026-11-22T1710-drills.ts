import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("drills")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("started_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("started_by", "text", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("result", "jsonb", (c) => c.notNull())
    .execute();
}
