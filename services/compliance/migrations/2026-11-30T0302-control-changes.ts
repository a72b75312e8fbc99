import type { Kysely } from "kysely";

// Frozen in time: imports no app code.
// Material control changes (a bot's or fleet's risk limits, a bot's control code, the kill-switch
// settings) as the services owning them announced them (ControlChanged): each marks the year's
// validation report as due until a signed report lists it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("control_changes")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("bot_id", "text")
    .addColumn("bot_slug", "text")
    .addColumn("fleet", "text")
    .addColumn("version", "integer")
    .addColumn("previous_version", "integer")
    .addColumn("actor", "text", (c) => c.notNull())
    .addColumn("changed_at", "timestamptz(3)", (c) => c.notNull())
    .addColumn("before", "jsonb", (c) => c.notNull())
    .addColumn("after", "jsonb", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("control_changes_by_time")
    .on("control_changes")
    .columns(["changed_at", "id"])
    .execute();
}
