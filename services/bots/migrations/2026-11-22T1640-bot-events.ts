import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Everything a running bot did, in order: the source of truth its state is folded from.
  await db.schema
    .createTable("bot_events")
    .addColumn("bot_id", "uuid", (c) => c.notNull())
    .addColumn("seq", "bigint", (c) => c.notNull())
    .addColumn("task_id", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("occurred_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("data", "jsonb", (c) => c.notNull())
    .addPrimaryKeyConstraint("bot_events_pk", ["bot_id", "seq"])
    .execute();
  await db.schema
    .createIndex("bot_events_task_idx")
    .on("bot_events")
    .columns(["task_id", "seq"])
    .execute();

  // Folded state every so often, so a snapshot never re-reads all history.
  await db.schema
    .createTable("bot_checkpoints")
    .addColumn("bot_id", "uuid", (c) => c.notNull())
    .addColumn("seq", "bigint", (c) => c.notNull())
    .addColumn("state", "jsonb", (c) => c.notNull())
    .addPrimaryKeyConstraint("bot_checkpoints_pk", ["bot_id", "seq"])
    .execute();
}
