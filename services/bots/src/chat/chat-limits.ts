import { Code, svcError, type ConnectError } from "@svc/lib/errors";
import type { KeyValueStore } from "@svc/lib/kv";
import type { ConversationRow } from "../store/chat.table.js";

/**
 * The two limits of research chat: chats a person starts per minute (a counter per person and
 * minute in the key-value store, shared by every bots process) and the model tokens one
 * conversation may use (held by one answer at a time: answer-hold.ts). Each refusal is a 429
 * naming the limit and its setting.
 */
export function chatLimits(deps: { kv: KeyValueStore; perMinute: number; tokenBudget: number }) {
  return {
    async takeChat(sub: string, nowMs = Date.now()): Promise<void> {
      const minute = Math.floor(nowMs / 60_000);
      if (!deps.kv.increment) return;
      let n: number;
      try {
        n = await deps.kv.increment(`svc:chat:rate:${sub}:${minute}`, 120);
      } catch (err) {
        throw svcError(
          Code.Unavailable,
          "chat_rate_limited",
          "the chat rate limit cannot be counted (key-value store); try again shortly",
          { limit: "SVC_CHAT_RATE_LIMIT_PER_MINUTE" },
          { cause: err },
        );
      }
      if (n > deps.perMinute)
        throw svcError(
          Code.ResourceExhausted,
          "chat_rate_limited",
          `you started more than ${deps.perMinute} chats this minute (SVC_CHAT_RATE_LIMIT_PER_MINUTE); wait until the next minute`,
          {
            limit: "SVC_CHAT_RATE_LIMIT_PER_MINUTE",
            per_minute: deps.perMinute,
            retry_after_s: 60 - Math.floor((nowMs % 60_000) / 1000),
          },
          { headers: { "retry-after": String(60 - Math.floor((nowMs % 60_000) / 1000)) } },
        );
    },

    /** Model tokens one conversation may use in all (SVC_CHAT_TOKEN_BUDGET). */
    tokenBudget: deps.tokenBudget,

    /**
     * Why a conversation's budget was refused to an answer: spent, or held whole by an answer in
     * flight until `heldUntil` at the latest (an answer's cost is unknown until it ends, so it
     * holds all that is left; a hold whose process died lapses then).
     */
    budgetRefusal(c: ConversationRow, heldUntil: Date | null, nowMs = Date.now()): ConnectError {
      const used = Number(c.tokens_used);
      const details = {
        limit: "SVC_CHAT_TOKEN_BUDGET",
        budget: deps.tokenBudget,
        used,
        conversation_id: c.id,
      };
      if (used < deps.tokenBudget && heldUntil) {
        // Most answers end within seconds: ask again soon; held_until is the latest it can last.
        const retryAfterS = Math.min(
          5,
          Math.max(1, Math.ceil((heldUntil.getTime() - nowMs) / 1000)),
        );
        return svcError(
          Code.ResourceExhausted,
          "chat_token_budget_exhausted",
          `another answer in this conversation is in flight and holds the rest of its budget (${used} of ${deps.tokenBudget} model tokens used, SVC_CHAT_TOKEN_BUDGET); send this message once it ends`,
          {
            ...details,
            answer_in_flight: true,
            held_until: heldUntil.toISOString(),
            retry_after_s: retryAfterS,
          },
          { headers: { "retry-after": String(retryAfterS) } },
        );
      }
      return svcError(
        Code.ResourceExhausted,
        "chat_token_budget_exhausted",
        `this conversation has used ${used} model tokens, its budget is ${deps.tokenBudget} (SVC_CHAT_TOKEN_BUDGET); start a new conversation`,
        details,
      );
    },
  };
}

export type ChatLimits = ReturnType<typeof chatLimits>;
