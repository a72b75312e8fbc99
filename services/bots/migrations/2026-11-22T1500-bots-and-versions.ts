import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code, so a later change of the app cannot rewrite history.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("bots")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("slug", "text", (c) => c.notNull().unique())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("fleet", "text")
    .addColumn("current_version", "integer", (c) => c.notNull())
    .addColumn("spec_hash", "text", (c) => c.notNull())
    .addColumn("spec", "jsonb", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint("bots_status_check", sql`status in ('draft', 'active', 'archived')`)
    .addCheckConstraint("bots_kind_check", sql`kind in ('trading', 'research')`)
    .execute();
  await db.schema.createIndex("bots_fleet_idx").on("bots").column("fleet").execute();

  await db.schema
    .createTable("bot_versions")
    .addColumn("bot_id", "uuid", (c) => c.notNull().references("bots.id").onDelete("cascade"))
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("spec_hash", "text", (c) => c.notNull())
    .addColumn("spec", "jsonb", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("bot_versions_pk", ["bot_id", "version"])
    .execute();
}
