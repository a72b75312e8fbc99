import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
// The quarterly drill's schedule (one row, the platform's; off until a person sets it) and the
// quarters the scheduler acted on: the drill it started, or the miss it raised, once each.
// watch_since is when the platform began watching its quarters: earlier ones are not judged.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("drill_schedule")
    .addColumn("scope", "text", (c) => c.primaryKey())
    .addColumn("enabled", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("month_of_quarter", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("day_of_month", "integer", (c) => c.notNull().defaultTo(15))
    .addColumn("hour_utc", "integer", (c) => c.notNull().defaultTo(9))
    .addColumn("minute_utc", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("reason", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("set_by", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("set_at", "timestamptz")
    .addColumn("watch_since", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await (db as Kysely<{ drill_schedule: { scope: string } }>)
    .insertInto("drill_schedule")
    .values({ scope: "platform" })
    .execute();
  await db.schema
    .createTable("drill_quarters")
    .addColumn("quarter", "text", (c) => c.primaryKey())
    .addColumn("scheduled_drill_id", "text")
    .addColumn("scheduled_at", "timestamptz")
    .addColumn("missed_at", "timestamptz")
    .execute();
}
