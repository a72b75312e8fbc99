import type { Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The answer in flight that holds what is left of a conversation's token budget, and when its
  // hold lapses (a process that died mid-answer does not lock the conversation for good).
  await db.schema
    .alterTable("chat_conversations")
    .addColumn("answer_id", "uuid")
    .addColumn("answer_until", "timestamptz")
    .execute();
}
