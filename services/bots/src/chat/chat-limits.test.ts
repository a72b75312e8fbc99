import { describe, expect, it } from "vitest";
import { Code, ConnectError } from "@connectrpc/connect";
import { errorDetailOf } from "@svc/lib/errors";
import { createMemoryStore } from "@svc/lib/kv";
import type { ConversationRow } from "../store/chat.table.js";
import { chatLimits } from "./chat-limits.js";

const refusal = async (p: Promise<unknown> | (() => void)) => {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (err) {
    const ce = ConnectError.from(err);
    return { rpcCode: ce.code, ...errorDetailOf(ce) };
  }
  return undefined;
};

describe("chat limits", () => {
  it("lets a person start the allowed chats in a minute, refuses the next naming the limit, and counts each minute anew", async () => {
    const limits = chatLimits({ kv: createMemoryStore(), perMinute: 2, tokenBudget: 1000 });
    const t = Date.parse("2026-11-25T10:00:10Z");
    await limits.takeChat("user|a", t);
    await limits.takeChat("user|a", t + 1_000);
    const r = await refusal(limits.takeChat("user|a", t + 2_000));
    expect(r).toMatchObject({ rpcCode: Code.ResourceExhausted, code: "chat_rate_limited" });
    expect(r?.details).toMatchObject({
      limit: "SVC_CHAT_RATE_LIMIT_PER_MINUTE",
      per_minute: 2,
      retry_after_s: 48,
    });
    // Another person has their own count; the next minute starts again.
    await limits.takeChat("user|b", t + 2_000);
    await limits.takeChat("user|a", t + 60_000);
  });

  it("says why a conversation's budget was refused: spent, or held by an answer in flight, and until when", () => {
    const limits = chatLimits({ kv: createMemoryStore(), perMinute: 2, tokenBudget: 1000 });
    const c = { id: "c1", tokens_used: "999" } as ConversationRow;
    const now = Date.parse("2026-11-26T12:00:00Z");
    const heldUntil = new Date(now + 600_000);
    const held = ConnectError.from(limits.budgetRefusal(c, heldUntil, now));
    expect(held.code).toBe(Code.ResourceExhausted);
    expect(errorDetailOf(held)).toMatchObject({
      code: "chat_token_budget_exhausted",
      details: {
        limit: "SVC_CHAT_TOKEN_BUDGET",
        used: 999,
        answer_in_flight: true,
        held_until: "2026-11-26T12:10:00.000Z",
        retry_after_s: 5,
      },
    });
    expect(held.metadata.get("retry-after")).toBe("5");
    expect(held.rawMessage).toMatch(/another answer .* in flight/);
    // A hold about to lapse: ask again when it has.
    const lapsing = limits.budgetRefusal(c, new Date(now + 1_200), now);
    expect(ConnectError.from(lapsing).metadata.get("retry-after")).toBe("2");
    const spent = errorDetailOf(limits.budgetRefusal({ ...c, tokens_used: "1000" }, heldUntil));
    expect(spent.code).toBe("chat_token_budget_exhausted");
    expect(spent.details).not.toHaveProperty("answer_in_flight");
  });
});
