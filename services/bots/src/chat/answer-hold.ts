import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import * as repo from "../store/conversations.repository.js";
import type { BotsDatabase } from "../store/bots.table.js";
import type { ConversationRow } from "../store/chat.table.js";
import { MAX_TOOL_ROUNDS } from "./chat-agent.js";
import type { ChatLimits } from "./chat-limits.js";

/** One answer's hold on its conversation's token budget. */
export interface AnswerHold {
  conversationId: string;
  answerId: string;
}

/**
 * How long a hold lasts before it lapses on its own: twice the longest an answer's model calls
 * may take (one per tool round and the last), so only an answer whose process died leaves it to
 * lapse; a live one releases it when it ends.
 */
export function answerHoldMs(llmTimeoutMs: number): number {
  return 2 * (MAX_TOOL_ROUNDS + 1) * llmTimeoutMs;
}

/**
 * Takes what is left of the conversation's token budget for one answer, or refuses with 429
 * chat_token_budget_exhausted. The check and the hold are one UPDATE, so two answers started at
 * once in one conversation cannot both pass the check: the second finds the budget held (or
 * spent) and is refused. An answer's cost is known only when it ends, so it holds the rest.
 *
 * @example
 *   const hold = await holdBudget(db, limits, conversation, answerHoldMs(60_000));
 *   try { ... } finally { await releaseBudget(db, hold); }
 */
export async function holdBudget(
  db: Kysely<BotsDatabase>,
  limits: Pick<ChatLimits, "tokenBudget" | "budgetRefusal">,
  conversation: ConversationRow,
  holdMs: number,
): Promise<AnswerHold> {
  const answerId = randomUUID();
  // A refusal is read after the UPDATE: an answer that ended in between leaves the budget
  // neither held nor spent, and asking again is right, not a refusal that names no reason.
  for (let attempt = 1; ; attempt++) {
    const held = await repo.holdForAnswer(db, {
      id: conversation.id,
      answerId,
      budget: limits.tokenBudget,
      holdMs,
    });
    if (held) return { conversationId: conversation.id, answerId };
    const now =
      (await repo.findConversation(
        db,
        conversation.bot_id,
        conversation.user_sub,
        conversation.id,
      )) ?? conversation;
    const heldUntil = await repo.answerHeldUntil(db, conversation.id);
    const spent = Number(now.tokens_used) >= limits.tokenBudget;
    if (spent || heldUntil || attempt === 3) throw limits.budgetRefusal(now, heldUntil);
  }
}

/** Lets go of a hold (nothing if it lapsed and another answer took the budget since). */
export function releaseBudget(db: Kysely<BotsDatabase>, hold: AnswerHold): Promise<void> {
  return repo.releaseAnswer(db, hold.conversationId, hold.answerId);
}
