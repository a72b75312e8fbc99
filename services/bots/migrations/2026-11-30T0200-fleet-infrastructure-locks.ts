import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
/**
 * One row per fleet whose BYOC runtime an apply or destroy is changing: the fleet is the key, so
 * a second operation on the same fleet finds the row and is refused instead of racing the first.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("fleet_infrastructure_locks")
    .addColumn("fleet", "text", (c) => c.primaryKey())
    .addColumn("operation", "text", (c) => c.notNull())
    .addColumn("holder", "text", (c) => c.notNull())
    .addColumn("started_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}
