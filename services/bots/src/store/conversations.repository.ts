import { sql, type Kysely, type Transaction } from "kysely";
import { keysetAfter, timestampKey } from "@svc/lib/paging";
import type { BotsDatabase } from "./bots.table.js";
import type { ChatMessageRow, ConversationRow, NewChatMessage } from "./chat.table.js";

type Db = Kysely<BotsDatabase>;
type Trx = Transaction<BotsDatabase>;

/** Only SQL lives here: the chat_conversations and chat_messages tables of the bots schema. */
export function findConversation(
  db: Db | Trx,
  botId: string,
  userSub: string,
  id: string,
): Promise<ConversationRow | undefined> {
  return db
    .selectFrom("chat_conversations")
    .selectAll()
    .where("id", "=", id)
    .where("bot_id", "=", botId)
    .where("user_sub", "=", userSub)
    .executeTakeFirst();
}

/** Locks the conversation for the rest of the transaction: two answers append in turn. */
export function lockConversation(trx: Trx, id: string): Promise<ConversationRow | undefined> {
  return trx
    .selectFrom("chat_conversations")
    .selectAll()
    .where("id", "=", id)
    .forUpdate()
    .executeTakeFirst();
}

export async function insertConversation(
  trx: Trx,
  row: { id: string; bot_id: string; user_sub: string; title: string },
): Promise<ConversationRow> {
  return trx.insertInto("chat_conversations").values(row).returningAll().executeTakeFirstOrThrow();
}

/** The person's conversations with a bot, most recently active first, after a page's last keys. */
export function listConversations(
  db: Db,
  f: { botId: string; userSub: string; limit: number; after?: readonly string[] },
): Promise<Array<ConversationRow & { updated_key: string }>> {
  let q = db
    .selectFrom("chat_conversations")
    .selectAll()
    .select(timestampKey(sql.ref("updated_at")).as("updated_key"))
    .where("bot_id", "=", f.botId)
    .where("user_sub", "=", f.userSub);
  if (f.after)
    q = q.where(
      keysetAfter([sql.ref("updated_at"), sql.ref("id")], f.after, ["timestamp", "uuid"], "desc"),
    );
  return q.orderBy("updated_at", "desc").orderBy("id", "desc").limit(f.limit).execute();
}

export function listMessages(db: Db | Trx, conversationId: string): Promise<ChatMessageRow[]> {
  return db
    .selectFrom("chat_messages")
    .selectAll()
    .where("conversation_id", "=", conversationId)
    .orderBy("seq")
    .execute();
}

/** Appends messages after the last one and counts them and the tokens used on the conversation. */
export async function appendMessages(
  trx: Trx,
  conversation: ConversationRow,
  messages: NewChatMessage[],
  tokens: number,
): Promise<void> {
  if (messages.length > 0)
    await trx
      .insertInto("chat_messages")
      .values(
        messages.map((m, i) => ({
          ...m,
          tool_calls: JSON.stringify(m.tool_calls ?? []),
          citations: JSON.stringify(m.citations ?? []),
          conversation_id: conversation.id,
          seq: conversation.message_count + i + 1,
        })),
      )
      .execute();
  await trx
    .updateTable("chat_conversations")
    .set({
      message_count: sql<number>`message_count + ${messages.length}`,
      tokens_used: sql<number>`tokens_used + ${tokens}`,
      updated_at: sql<Date>`now()`,
    })
    .where("id", "=", conversation.id)
    .execute();
}

/**
 * Takes the conversation's budget for one answer, checked and recorded in one statement: it
 * succeeds only while the tokens used are under `budget` and no other answer holds it (or that
 * hold has lapsed), so of two answers asking at once exactly one gets it. Undefined: refused.
 */
export function holdForAnswer(
  db: Db | Trx,
  h: { id: string; answerId: string; budget: number; holdMs: number },
): Promise<ConversationRow | undefined> {
  return db
    .updateTable("chat_conversations")
    .set({
      answer_id: h.answerId,
      answer_until: sql<Date>`now() + ${h.holdMs} * interval '1 millisecond'`,
    })
    .where("id", "=", h.id)
    .where("tokens_used", "<", String(h.budget))
    .where((eb) => eb.or([eb("answer_id", "is", null), eb("answer_until", "<", sql<Date>`now()`)]))
    .returningAll()
    .executeTakeFirst();
}

/** Until when another answer holds the conversation's budget (its hold not lapsed), or null. */
export async function answerHeldUntil(db: Db | Trx, id: string): Promise<Date | null> {
  const r = await db
    .selectFrom("chat_conversations")
    .select("answer_until")
    .where("id", "=", id)
    .where("answer_id", "is not", null)
    .where("answer_until", ">=", sql<Date>`now()`)
    .executeTakeFirst();
  return r?.answer_until ?? null;
}

/** Lets go of the conversation's budget, if `answerId` still holds it (a lapsed hold may not). */
export async function releaseAnswer(db: Db | Trx, id: string, answerId: string): Promise<void> {
  await db
    .updateTable("chat_conversations")
    .set({ answer_id: null, answer_until: null })
    .where("id", "=", id)
    .where("answer_id", "=", answerId)
    .execute();
}

export async function deleteConversation(trx: Trx, id: string): Promise<boolean> {
  const r = await trx.deleteFrom("chat_conversations").where("id", "=", id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}
