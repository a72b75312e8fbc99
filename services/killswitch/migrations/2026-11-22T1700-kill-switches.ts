import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("kill_switches")
    .addColumn("name", "text", (c) => c.primaryKey())
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("target", "text", (c) => c.notNull())
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("ttl", "text", (c) => c.notNull())
    .addColumn("engaged_by", "text", (c) => c.notNull())
    .addColumn("engaged_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("expires_at", "timestamptz")
    .execute();
  // Bot slugs and fleets, projected from the bots service's events, to refuse unknown targets.
  await db.schema
    .createTable("known_bots")
    .addColumn("bot_id", "text", (c) => c.primaryKey())
    .addColumn("slug", "text", (c) => c.notNull())
    .addColumn("fleet", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("security_audit_events")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("actor_user_id", "text", (c) => c.notNull())
    .addColumn("event_type", "text", (c) => c.notNull())
    .addColumn("details", "jsonb", (c) => c.notNull())
    .execute();
}
