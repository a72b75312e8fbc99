import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Capital and limits an approved allocation request gives a bot (by slug) or a fleet; paper
  // sessions started while it is active trade that capital. Revocation ends it.
  await db.schema
    .createTable("allocations")
    .addColumn("request_id", "text", (c) => c.notNull())
    .addColumn("target", "text", (c) => c.notNull())
    .addColumn("capital", "double precision", (c) => c.notNull())
    .addColumn("limits", "jsonb", (c) => c.notNull())
    .addColumn("active", "boolean", (c) => c.notNull())
    .addColumn("applied_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("revoked_at", "timestamptz")
    .addPrimaryKeyConstraint("allocations_pk", ["request_id", "target"])
    .execute();
}
