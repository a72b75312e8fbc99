import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A person's conversations with a research bot: the history fed back to the model, and the
  // tokens counted against the conversation's budget.
  await db.schema
    .createTable("chat_conversations")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("bot_id", "uuid", (c) => c.notNull().references("bots.id").onDelete("cascade"))
    .addColumn("user_sub", "text", (c) => c.notNull())
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("tokens_used", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("message_count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex("chat_conversations_by_owner")
    .on("chat_conversations")
    .columns(["bot_id", "user_sub", "updated_at", "id"])
    .execute();
  await db.schema
    .createTable("chat_messages")
    .addColumn("conversation_id", "uuid", (c) =>
      c.notNull().references("chat_conversations.id").onDelete("cascade"),
    )
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("tool", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("call_id", "text", (c) => c.notNull().defaultTo(""))
    // An assistant turn that asked for tools: [{id, name, arguments}], replayed to the model.
    .addColumn("tool_calls", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("citations", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("chat_messages_pk", ["conversation_id", "seq"])
    .execute();
}
