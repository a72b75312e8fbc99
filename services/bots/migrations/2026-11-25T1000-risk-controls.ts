import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Whether a throttle breach disabled a bot (RTS 6 Art. 15(3)) and who re-enabled it last: one
  // row per bot, written by the runner that tripped and by the re-enable route.
  await db.schema
    .createTable("bot_risk_state")
    .addColumn("bot_id", "uuid", (c) => c.primaryKey().references("bots.id").onDelete("cascade"))
    .addColumn("disabled", "boolean", (c) => c.notNull())
    .addColumn("control", "text", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("limit_value", "double precision", (c) => c.notNull())
    .addColumn("observed_value", "double precision", (c) => c.notNull())
    .addColumn("task_id", "text", (c) => c.notNull())
    .addColumn("disabled_at", "timestamptz", (c) => c.notNull())
    .addColumn("re_enabled_by", "text")
    .addColumn("re_enabled_at", "timestamptz")
    .addColumn("re_enable_reason", "text")
    .execute();
  // Limits a fleet's bots share; a fleet is otherwise only a name on its bots.
  await db.schema
    .createTable("fleet_risk_limits")
    .addColumn("fleet", "text", (c) => c.primaryKey())
    .addColumn("capital_limit", "double precision", (c) => c.notNull())
    .addColumn("credit_limit", "double precision", (c) => c.notNull())
    .addColumn("updated_by", "text", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}
