import { sql, type Kysely } from "kysely";

/**
 * The platform-wide audit trail: one hash chain, seq assigned under a lock as head + 1 (no gaps,
 * so a missing row shows), every field as the hash covers it. The earlier `audit_events` table
 * stays as it was (its rows predate the chain) and is no longer written.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("security_audit_events")
    .addColumn("seq", "bigint", (c) => c.primaryKey())
    .addColumn("id", "text", (c) => c.notNull().unique())
    .addColumn("occurred_at", "timestamptz", (c) => c.notNull())
    .addColumn("service", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("outcome", "text", (c) => c.notNull())
    .addColumn("resource", "text", (c) => c.notNull())
    .addColumn("actor_subject", "text", (c) => c.notNull())
    .addColumn("actor_type", "text", (c) => c.notNull())
    .addColumn("internal_user_id", "text", (c) => c.notNull())
    .addColumn("agent_subject", "text", (c) => c.notNull())
    .addColumn("on_behalf_of", "text", (c) => c.notNull())
    .addColumn("request_id", "text", (c) => c.notNull())
    .addColumn("trace_id", "text", (c) => c.notNull())
    // The canonical JSON the hash covers, kept as text so no store normalises it.
    .addColumn("details", "text", (c) => c.notNull())
    .addColumn("prev_hash", "text", (c) => c.notNull())
    .addColumn("hash", "text", (c) => c.notNull())
    .addColumn("recorded_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  for (const column of ["action", "resource", "actor_subject", "occurred_at"])
    await db.schema
      .createIndex(`security_audit_events_${column}_idx`)
      .on("security_audit_events")
      .columns([column, "seq"])
      .execute();
}
