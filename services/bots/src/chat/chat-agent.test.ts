import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStandInLlm, type StandInLlm } from "../../../../dev/llm/stand-in-llm.js";
import type { NewChatMessage } from "../store/chat.table.js";
import { historyForModel, runAgent, type AgentEvent } from "./chat-agent.js";
import type { ChatMessageRow } from "../store/chat.table.js";
import { createLlmClient, LlmError, type LlmSettings } from "./llm-client.js";
import type { McpSession } from "./mcp-tools.js";

/**
 * The agent's loop against the stand-in model over HTTP; the MCP session is a recording double
 * here (the real endpoint, delegation and audit are in test/e2e/research-chat.test.ts).
 */
describe("research agent loop", () => {
  let llm: StandInLlm;
  let settings: LlmSettings;
  beforeAll(async () => {
    llm = await startStandInLlm();
    settings = { baseUrl: llm.baseUrl, model: "stand-in", timeoutMs: 1_000 };
  });
  afterAll(() => llm.close());

  const run = async (message: string, mcp?: McpSession, signal = new AbortController().signal) => {
    const events: AgentEvent[] = [];
    const stored: NewChatMessage[] = [];
    let tokens = 0;
    await runAgent({
      llm: createLlmClient(settings),
      settings,
      botName: "Lab",
      history: [],
      message,
      ...(mcp ? { mcp } : {}),
      emit: (e) => events.push(e),
      record: (m) => stored.push(m),
      count: (n) => (tokens += n),
      signal,
    });
    return { events, stored, tokens };
  };

  const tools = (answer: (name: string) => string) => {
    const calls: Array<{ name: string; args: unknown }> = [];
    const session: McpSession = {
      tools: [{ name: "bots.list", description: "the bots", inputSchema: { type: "object" } }],
      async call(name, args) {
        calls.push({ name, args });
        return { isError: false, text: answer(name) };
      },
      close: async () => {},
    };
    return { session, calls };
  };

  it("calls the tool the model asks for under its MCP name, feeds the result back and cites it", async () => {
    const { session, calls } = tools(() => JSON.stringify({ items: [{ slug: "alpha" }] }));
    const { events, stored, tokens } = await run("what bots are there?", session);
    expect(calls).toEqual([{ name: "bots.list", args: {} }]);
    expect(llm.requests.at(-2)!.tools!.map((t) => t.function.name)).toEqual(["bots_list"]);
    const call = events.find((e) => e.kind === "tool_call")!;
    const final = events.at(-1)!;
    expect(final).toMatchObject({
      kind: "final",
      citations: [{ call_id: (call as { callId: string }).callId, tool: "bots.list" }],
    });
    expect((final as { text: string }).text).toContain("1 bot(s): alpha.");
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(tokens).toBeGreaterThan(0);
  });

  it("offers no tools without a session and streams the answer in pieces", async () => {
    const { events } = await run("hello there");
    expect(llm.requests.at(-1)!.tools).toBeUndefined();
    expect(events.filter((e) => e.kind === "token").length).toBeGreaterThan(1);
    expect(events.at(-1)).toMatchObject({ kind: "final", text: "You said: hello there" });
  });

  it("gives up on a model that hangs at SVC_LLM_TIMEOUT_MS, and stops at once when its signal fires", async () => {
    await expect(run("please hang")).rejects.toMatchObject({ code: "llm_timeout" });
    const stop = new AbortController();
    const halted = run("answer slowly", undefined, stop.signal);
    await new Promise((r) => setImmediate(r));
    stop.abort(new Error("halted: drill"));
    await expect(halted).rejects.toThrow("halted: drill");
    await expect(run("please hang")).rejects.toBeInstanceOf(LlmError);
  });

  it("leaves out of the history a tool call a halt left without its result", () => {
    const row = (m: Partial<ChatMessageRow>): ChatMessageRow =>
      ({ tool: "", call_id: "", tool_calls: [], citations: [], text: "", ...m }) as ChatMessageRow;
    const history = [
      row({ role: "user", text: "q1" }),
      row({ role: "assistant", tool_calls: [{ id: "c1", name: "bots.list", arguments: "{}" }] }),
      row({ role: "tool", call_id: "c1", tool: "bots.list", text: "[]" }),
      row({ role: "assistant", text: "none" }),
      row({ role: "user", text: "q2" }),
      row({ role: "assistant", tool_calls: [{ id: "c2", name: "bots.get", arguments: "{}" }] }),
    ];
    expect(historyForModel(history).map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
    ]);
  });
});
