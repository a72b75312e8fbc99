import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { startStandInLlm, type StandInLlm } from "../../dev/llm/stand-in-llm.js";
import type { RunningPlatform } from "@svc/all-in-one";
import { startOidcPlatform, testUser, type OidcPlatform } from "../support/oidc-platform.js";
import { approvedSession, statusOf } from "../support/paper.js";
import { startPrivateRedis, type PrivateServer } from "../support/private-servers.js";
import { postForEvents, type SseEvent } from "../support/sse.js";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const kindOf = (e: Record<string, unknown>) => Object.keys(e)[0];

/**
 * Research bots you can talk to, on the platform under the development OIDC provider with the
 * stand-in model: the model asks for a tool, the agent exchanges the person's token for a
 * delegated one (act.sub agent|research) and calls the tool through the platform's MCP endpoint,
 * which audits it; the answer streams back citing the call. The agent switches end a stream.
 */
describe("research chat", () => {
  let llm: StandInLlm;
  let o: OidcPlatform;
  let carol: Record<string, string>;
  const chat = (ref: string, body: unknown, headers = carol) =>
    call(o.p.url, "POST", `/bots/${ref}/chat`, body, headers);

  beforeAll(async () => {
    llm = await startStandInLlm();
    o = await startOidcPlatform(
      "pglite",
      [
        testUser("carol", [
          "chat:bots",
          "read:mcp:data",
          "write:mcp:data",
          "read:bots",
          "write:bots",
          "run:bots",
          "read:audit",
          "halt:platform",
        ]),
      ],
      (idp) => ({
        SVC_LLM_BASE_URL: llm.baseUrl,
        SVC_LLM_MODEL: "stand-in",
        SVC_LLM_TIMEOUT_MS: "1500",
        SVC_AUTH_AGENT_BROKER_CLIENT_ID: idp.clients.agentBroker.clientId,
        SVC_AUTH_AGENT_BROKER_CLIENT_SECRET: idp.clients.agentBroker.clientSecret,
        SVC_CHAT_AGENT_CLIENT_ID: idp.clients.agent.clientId,
        SVC_CHAT_AGENT_CLIENT_SECRET: idp.clients.agent.clientSecret,
      }),
    );
    carol = { authorization: `Bearer ${await o.tokens.user("carol")}` };
    for (const [slug, kind] of [
      ["lab-bot", "research"],
      ["trade-bot", "trading"],
    ])
      expect(
        (
          await call(
            o.p.url,
            "POST",
            "/bots",
            { name: slug, slug, kind, strategy: { family: "ma_crossover", parameters: {} } },
            carol,
          )
        ).status,
      ).toBe(201);
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await o?.close();
    await llm?.close();
  });

  /** The workload_run entries of a conversation's answers, oldest first. */
  const chatRuns = (conversationId: unknown) =>
    eventually(
      "the answer's start and stop reach the audit trail",
      async () =>
        (
          ((
            await call(
              o.p.url,
              "GET",
              "/admin/audit-events?action=workload_run&limit=1000",
              undefined,
              carol,
            )
          ).body?.items as
            Array<{ actor_user_id: string; details: Record<string, unknown> }> | undefined) ?? []
        ).filter((e) => e.details.conversation_id === conversationId),
      (runs) => runs.length >= 2 && runs.length % 2 === 0,
      30_000,
    );

  it("answers as JSON: the model asks for bots.list, the tool runs delegated and audited, the answer cites it", async () => {
    const res = await chat("lab-bot", { message: "Which bots do we have?" });
    expect(res.status, res.text).toBe(200);
    const events = res.body.events as Array<Record<string, Record<string, unknown>>>;
    expect(events.map(kindOf)).toEqual(
      expect.arrayContaining(["started", "tool_call", "tool_result", "token", "final"]),
    );
    expect(kindOf(events[0]!)).toBe("started");
    expect(events[0]!.started!.agent_subject).toBe("agent|research");
    const callEvent = events.find((e) => e.tool_call)!.tool_call!;
    expect(callEvent.tool).toBe("bots.list");
    const result = events.find((e) => e.tool_result)!.tool_result!;
    expect(result.is_error).toBe(false);
    expect(JSON.parse(String(result.text)).items.map((b: { slug: string }) => b.slug)).toEqual(
      expect.arrayContaining(["lab-bot", "trade-bot"]),
    );
    const final = events.at(-1)!.final!;
    expect(final.citations).toEqual([{ call_id: callEvent.call_id, tool: "bots.list" }]);
    expect(final.text).toContain(`[${String(callEvent.call_id)}]`);
    expect(final.text).toContain("lab-bot");
    expect(Number(final.tokens_used)).toBeGreaterThan(0);
    // The model was offered the MCP tools, under names its API accepts.
    expect(llm.requests.at(-1)!.tools!.map((t) => t.function.name)).toContain("bots_list");

    const audit = await eventually(
      "the tool call is audited with the agent and the person",
      async () =>
        (
          await call(
            o.p.url,
            "GET",
            "/admin/audit-events?actor=agent%7Cresearch&action=mcp.tool.bots.list",
            undefined,
            carol,
          )
        ).body?.items as Array<{ details: { delegation?: Record<string, string> } }> | undefined,
      (items) => (items?.length ?? 0) > 0,
    );
    expect(audit![0]!.details.delegation).toMatchObject({
      agent_subject: "agent|research",
      on_behalf_of_sub: "dev|carol",
      profile: "svc-agent-delegation",
    });

    // The answer is a workload: its start and its stop are carol's workload_run entries.
    const conversationId = events[0]!.started!.conversation_id;
    expect(await chatRuns(conversationId)).toMatchObject([
      {
        actor_user_id: "dev|carol",
        details: { workload: "chat_session", op: "start", version: 1 },
      },
      { actor_user_id: "dev|carol", details: { op: "stop", reason: "finished" } },
    ]);
  });

  it("streams server-sent events named by kind, and continues a conversation with its history", async () => {
    const other = await chat("lab-bot", { message: "an earlier conversation" });
    const otherId = other.body.events[0].started.conversation_id as string;
    const res = await postForEvents(
      `${o.p.url}/bots/lab-bot/chat`,
      { message: "List the bots please" },
      carol,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const events: SseEvent[] = [];
    for await (const e of res.events) events.push(e);
    const names = events.map((e) => e.event);
    expect(names[0]).toBe("started");
    expect(names.at(-1)).toBe("final");
    expect(names).toEqual(expect.arrayContaining(["tool_call", "tool_result", "token"]));
    const conversationId = events[0]!.data.conversation_id as string;
    expect(events.at(-1)!.data.conversation_id).toBe(conversationId);

    const again = await chat("lab-bot", { message: "thanks", conversation_id: conversationId });
    expect(again.status, again.text).toBe(200);
    // The model saw the earlier turn: the question, the tool call and its result.
    const sent = llm.requests.at(-1)!.messages;
    expect(sent.map((m) => m.role)).toEqual([
      "system",
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
    ]);
    expect(again.body.events.at(-1).final.text).toBe("You said: thanks");

    const listed = await call(o.p.url, "GET", "/bots/lab-bot/conversations", undefined, carol);
    expect(listed.status, listed.text).toBe(200);
    const mine = listed.body.items.find((c: { id: string }) => c.id === conversationId);
    expect(mine).toMatchObject({ title: "List the bots please", message_count: 6 });
    // Most recently active first, a page at a time.
    const first = await call(
      o.p.url,
      "GET",
      "/bots/lab-bot/conversations?limit=1",
      undefined,
      carol,
    );
    expect(first.body.items.map((c: { id: string }) => c.id)).toEqual([conversationId]);
    const second = await call(
      o.p.url,
      "GET",
      `/bots/lab-bot/conversations?limit=1&page_token=${first.body.next_page_token}`,
      undefined,
      carol,
    );
    expect(first.body.next_page_token).not.toBe("");
    expect(second.body.items.map((c: { id: string }) => c.id)).toEqual([otherId]);
    const detail = await call(
      o.p.url,
      "GET",
      `/bots/lab-bot/conversations/${conversationId}`,
      undefined,
      carol,
    );
    expect(detail.body.messages.map((m: { role: string }) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
    ]);
    const deleted = await call(
      o.p.url,
      "DELETE",
      `/bots/lab-bot/conversations/${conversationId}`,
      undefined,
      carol,
    );
    expect(deleted.body).toEqual({ conversation_id: conversationId, deleted: true });
    const gone = await chat("lab-bot", {
      message: "still there?",
      conversation_id: conversationId,
    });
    expect([gone.status, gone.body.error.code]).toEqual([404, "conversation_not_found"]);
  });

  it("serves standard MCP clients: tools listed and called, 403 without the scope, agent-only tools refuse a person's own token", async () => {
    const person = await o.tokens.user("carol");
    const exchange = async (scope: string) => {
      const r = await o.tokens.exchange(person, { scope });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return String(r.body.access_token);
    };
    const connect = async (token: string) => {
      const client = new Client({ name: "test-client", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${o.p.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      return client;
    };
    const agent = await connect(await exchange("read:mcp:data write:mcp:data"));
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(["bots.list", "bots.get", "backtests.launch"]),
    );
    expect(tools.find((t) => t.name === "bots.get")!.inputSchema).toMatchObject({
      required: ["bot_ref"],
    });
    const listed = await agent.callTool({ name: "bots.list", arguments: {} });
    expect(listed.isError).toBeFalsy();
    expect(listed.structuredContent).toMatchObject({
      actor: { agent_subject: "agent|research", on_behalf_of_sub: "dev|carol" },
    });
    const launched = await agent.callTool({
      name: "backtests.launch",
      arguments: { bot_ref: "lab-bot" },
    });
    expect(launched.isError, JSON.stringify(launched.content)).toBeFalsy();
    expect(launched.structuredContent).toMatchObject({
      // The data tools answer the REST API's JSON: enum values as the spec spells them.
      result: { target: "backtest", status: "pending" },
    });
    const onTrading = await agent.callTool({
      name: "backtests.launch",
      arguments: { bot_ref: "trade-bot" },
    });
    expect(onTrading.isError).toBe(true);
    expect(JSON.stringify(onTrading.content)).toContain("bot_not_research");
    await agent.close();

    const reader = await connect(await exchange("read:mcp:data"));
    const noWrite = await reader.callTool({
      name: "backtests.launch",
      arguments: { bot_ref: "lab-bot" },
    });
    expect(noWrite.isError).toBe(true);
    expect(JSON.parse((noWrite.content as Array<{ text: string }>)[0]!.text)).toMatchObject({
      status: 403,
      error: { code: "missing_scope", details: { scope: "write:mcp:data" } },
    });
    await reader.close();

    // The person's own token has both scopes but is no agent's: reads pass, the launcher refuses.
    const own = await connect(person);
    expect((await own.callTool({ name: "bots.list", arguments: {} })).isError).toBeFalsy();
    const refused = await own.callTool({
      name: "backtests.launch",
      arguments: { bot_ref: "lab-bot" },
    });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toContain("agent_only_tool");
    await own.close();

    // Without read:mcp:data the endpoint answers 403 before any JSON-RPC: the SDK client sees it.
    const writeOnly = await exchange("write:mcp:data");
    await expect(connect(writeOnly)).rejects.toMatchObject({ code: 403 });
    await expect(connect("not-a-token")).rejects.toMatchObject({ code: 401 });
    // Stateless: no session to resume or end.
    expect((await call(o.p.url, "GET", "/mcp", undefined, carol)).status).toBe(405);
  });

  it("halts: /agents/halt ends a stream in flight with a halted event and refuses new chats until released", async () => {
    const operator = { authorization: `Bearer ${await o.tokens.user("carol", { mfa: true })}` };
    const res = await postForEvents(
      `${o.p.url}/bots/lab-bot/chat`,
      { message: "Think slowly about momentum" },
      carol,
    );
    expect(res.status).toBe(200);
    const seen: SseEvent[] = [];
    for await (const e of res.events) {
      seen.push(e);
      if (seen.filter((s) => s.event === "token").length === 3) {
        const halted = await call(
          o.p.url,
          "POST",
          "/agents/halt",
          { reason: "chat drill" },
          operator,
        );
        expect(halted.status, halted.text).toBe(200);
      }
    }
    expect(seen.at(-1)).toEqual({
      event: "halted",
      data: { scope: "agents", reason: "chat drill" },
    });
    expect(seen.some((e) => e.event === "final")).toBe(false);
    const haltedRuns = await chatRuns(String(seen[0]!.data.conversation_id));
    expect(haltedRuns.at(-1)).toMatchObject({
      details: { op: "stop", reason: "halted: chat drill" },
    });

    const refused = await chat("lab-bot", { message: "hello" });
    expect([refused.status, refused.body.error.code]).toEqual([503, "agents_halted"]);
    expect(refused.body.error.details).toEqual({ scope: "agents", reason: "chat drill" });

    const released = await call(o.p.url, "DELETE", "/agents/halt", undefined, operator);
    expect(released.body).toEqual({ key: "svc:agents:halt:all", released: true });
    expect((await chat("lab-bot", { message: "hello" })).status).toBe(200);

    expect(
      (await call(o.p.url, "POST", "/quant-agents/halt", { reason: "research off" }, operator))
        .status,
    ).toBe(200);
    const quant = await chat("lab-bot", { message: "hello" });
    expect(quant.body.error).toMatchObject({
      code: "agents_halted",
      details: { scope: "quant_agents" },
    });
    await call(o.p.url, "DELETE", "/quant-agents/halt", undefined, operator);

    // The platform kill switch (what a drill engages) halts every bot, research bots' agents too.
    const platform = await call(
      o.p.url,
      "PUT",
      "/kill-switches/chat-platform",
      { scope: "platform", target: "platform", mode: "cancel", reason: "platform drill" },
      operator,
    );
    expect(platform.status, platform.text).toBe(200);
    const underPlatform = await chat("lab-bot", { message: "hello" });
    expect(underPlatform.body.error).toMatchObject({
      code: "agents_halted",
      details: { scope: "platform", reason: "platform drill" },
    });
    await call(o.p.url, "DELETE", "/kill-switches/chat-platform", undefined, operator);
    expect((await chat("lab-bot", { message: "hello" })).status).toBe(200);

    const audited = await eventually(
      "the switches are in the audit trail",
      async () =>
        (await call(o.p.url, "GET", "/admin/audit-events?limit=1000", undefined, carol)).body
          ?.items as Array<{ action: string }> | undefined,
      (items) => (items ?? []).some((e) => e.action === "killswitch.quant_agents.released"),
    );
    expect(audited!.map((e) => e.action)).toEqual(
      expect.arrayContaining(["killswitch.agents.halted", "killswitch.agents.released"]),
    );
  });

  it("refuses a trading bot (409 naming its kind), bad input (400), a model that hangs (504)", async () => {
    const trading = await chat("trade-bot", { message: "hi" });
    expect([trading.status, trading.body.error.code]).toEqual([409, "bot_not_research"]);
    expect(trading.body.error.details.kind).toBe("trading");
    const nul = await chat("lab-bot", { message: "a\u0000b" });
    expect([nul.status, nul.body.error.details.field]).toEqual([400, "message"]);
    const huge = await chat("lab-bot", { message: "x".repeat(20_001) });
    expect([huge.status, huge.body.error.details.field]).toEqual([400, "message"]);
    expect((await chat("no-such-bot", { message: "hi" })).status).toBe(404);
    const hung = await chat("lab-bot", { message: "please hang" });
    expect([hung.status, hung.body.error.code]).toEqual([504, "llm_timeout"]);
    expect(hung.body.error.message).toContain("SVC_LLM_TIMEOUT_MS");
    // Streamed, the answer had begun: the failure is its last event, with the error body.
    const streamed = await postForEvents(
      `${o.p.url}/bots/lab-bot/chat`,
      { message: "please hang" },
      carol,
    );
    const events: SseEvent[] = [];
    for await (const e of streamed.events) events.push(e);
    expect(events.map((e) => e.event)).toEqual(["started", "error"]);
    expect(events[1]!.data.error.code).toBe("llm_timeout");
  });
});

/** Under OIDC without the agent's own client, a chat cannot delegate: 412 naming the settings. */
describe("research chat without an agent client", () => {
  let llm: StandInLlm;
  let o: OidcPlatform;
  beforeAll(async () => {
    llm = await startStandInLlm();
    o = await startOidcPlatform(
      "pglite",
      [testUser("dana", ["chat:bots", "read:mcp:data", "write:bots"])],
      {
        SVC_LLM_BASE_URL: llm.baseUrl,
        SVC_LLM_MODEL: "stand-in",
      },
    );
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await o?.close();
    await llm?.close();
  });

  it("answers 412 chat_delegation_failed naming what to set", async () => {
    const dana = { authorization: `Bearer ${await o.tokens.user("dana")}` };
    await call(o.p.url, "POST", "/bots", { name: "Lab", slug: "lab", kind: "research" }, dana);
    const res = await call(o.p.url, "POST", "/bots/lab/chat", { message: "which bots?" }, dana);
    expect([res.status, res.body.error.code]).toEqual([412, "chat_delegation_failed"]);
    expect(res.body.error.details.settings).toContain("SVC_CHAT_AGENT_CLIENT_ID");
  });
});

/**
 * The local topology (SVC_AUTH_PROVIDER=local), on the real Postgres and a Redis of its own: no
 * provider to delegate through, so the tools run as the local user; without a model, chat says
 * which settings it needs; the limits (counted in Redis) answer 429.
 */
describe("research chat, locally", () => {
  let llm: StandInLlm;
  let redis: PrivateServer;
  let bare: RunningPlatform;
  let p: RunningPlatform;
  beforeAll(async () => {
    llm = await startStandInLlm();
    redis = await startPrivateRedis();
    bare = await startTestPlatform("pglite");
    p = await startTestPlatform("postgres", {
      SVC_REDIS_URL: redis.url,
      SVC_LLM_BASE_URL: llm.baseUrl,
      SVC_LLM_MODEL: "stand-in",
      SVC_CHAT_RATE_LIMIT_PER_MINUTE: "3",
      SVC_CHAT_TOKEN_BUDGET: "100",
    });
    for (const platform of [bare, p])
      await call(platform.url, "POST", "/bots", { name: "Lab", slug: "lab", kind: "research" });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await bare?.close();
    await p?.close();
    await redis?.stop();
    await llm?.close();
  });

  it("answers 412 naming the settings when no model is configured", async () => {
    const res = await call(bare.url, "POST", "/bots/lab/chat", { message: "hi" });
    expect([res.status, res.body.error.code]).toEqual([412, "llm_not_configured"]);
    expect(res.body.error.details.settings).toEqual([
      "SVC_LLM_BASE_URL",
      "SVC_LLM_MODEL",
      "SVC_LLM_API_KEY",
    ]);
  });

  it("runs the tools as the local user, then answers 429 past the token budget and the rate limit", async () => {
    // The chats below must fall in one minute of the rate limit's window.
    await eventually(
      "a minute with time to spare",
      () => new Date().getSeconds(),
      (s) => s < 45,
      20_000,
    );
    const first = await call(p.url, "POST", "/bots/lab/chat", { message: "list the bots" });
    expect(first.status, first.text).toBe(200);
    const result = first.body.events.find((e: { tool_result?: unknown }) => e.tool_result);
    expect(result.tool_result.is_error).toBe(false);
    const conversation = first.body.events[0].started.conversation_id;
    const over = await call(p.url, "POST", "/bots/lab/chat", {
      message: "more",
      conversation_id: conversation,
    });
    expect([over.status, over.body.error.code]).toEqual([429, "chat_token_budget_exhausted"]);
    expect(over.body.error.details.limit).toBe("SVC_CHAT_TOKEN_BUDGET");
    // A chat refused by its conversation's budget was not started: two of the three are left.
    expect((await call(p.url, "POST", "/bots/lab/chat", { message: "hi" })).status).toBe(200);
    expect((await call(p.url, "POST", "/bots/lab/chat", { message: "hi" })).status).toBe(200);
    const limited = await call(p.url, "POST", "/bots/lab/chat", { message: "hi" });
    expect([limited.status, limited.body.error.code]).toEqual([429, "chat_rate_limited"]);
    expect(limited.body.error.details.limit).toBe("SVC_CHAT_RATE_LIMIT_PER_MINUTE");
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("is in the drill: a drill's platform switch ends a chat in flight, and chats start again after it", async () => {
    await approvedSession(p, "drilled", "drills", 20);
    await eventually(
      "the paper session runs",
      () => statusOf(p, "drilled"),
      (s) => s === "running",
    );
    const res = await postForEvents(
      `${p.url}/bots/lab/chat`,
      { message: "Think slowly about drills" },
      { "x-svc-local-user": "driller" },
    );
    expect(res.status).toBe(200);
    const seen: SseEvent[] = [];
    let drillId = "";
    for await (const e of res.events) {
      seen.push(e);
      if (e.event === "token" && !drillId) {
        const drill = await call(p.url, "POST", "/kill-switch/drills", { reason: "chat drill" });
        expect(drill.status, drill.text).toBe(202);
        drillId = drill.body.id;
      }
    }
    expect(seen.at(-1)).toEqual({
      event: "halted",
      data: { scope: "platform", reason: "chat drill" },
    });
    await eventually(
      "the drill ends",
      async () => (await call(p.url, "GET", `/kill-switch/drills/${drillId}`)).body.state,
      (s) => s !== "running",
      60_000,
    );
    const after = await call(
      p.url,
      "POST",
      "/bots/lab/chat",
      { message: "hi" },
      { "x-svc-local-user": "driller" },
    );
    expect(after.status, after.text).toBe(200);
  }, 90_000);
});

/**
 * Two chats started at once in one conversation with room for one answer left: the budget is
 * checked and held in one statement, so exactly one runs and the other is refused; the hold is
 * let go when the answer ends, however it ends (the person gone, the model hanging).
 */
describe("research chat's token budget under concurrent chats", () => {
  const BUDGET = 100_000;
  let llm: StandInLlm;
  let p: RunningPlatform;
  const chatUrl = () => `${p.url}/bots/lab/chat`;
  /** A streamed chat whose answer can be walked away from (the fetch aborted). */
  const streamed = async (body: unknown) => {
    const leave = new AbortController();
    const res = await fetch(chatUrl(), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify(body),
      signal: leave.signal,
    });
    return { res, leave };
  };
  const tokensOf = async (id: string) =>
    Number(
      (
        await sql<{
          tokens_used: string;
        }>`select tokens_used from bots.chat_conversations where id = ${id}`.execute(
          p.platform.db.db,
        )
      ).rows[0]!.tokens_used,
    );

  beforeAll(async () => {
    llm = await startStandInLlm();
    p = await startTestPlatform("postgres", {
      SVC_LLM_BASE_URL: llm.baseUrl,
      SVC_LLM_MODEL: "stand-in",
      SVC_LLM_TIMEOUT_MS: "1500",
      SVC_CHAT_TOKEN_BUDGET: String(BUDGET),
    });
    await call(p.url, "POST", "/bots", { name: "Lab", slug: "lab", kind: "research" });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    await llm?.close();
  });

  it("runs one of two chats racing on a conversation with room for one, and refuses the other 429", async () => {
    const first = await call(p.url, "POST", "/bots/lab/chat", { message: "hi" });
    expect(first.status, first.text).toBe(200);
    const conversation = first.body.events[0].started.conversation_id as string;
    // Room for one answer: a token under the budget.
    await sql`update bots.chat_conversations set tokens_used = ${BUDGET - 1} where id = ${conversation}`.execute(
      p.platform.db.db,
    );

    const racing = await Promise.all(
      [1, 2].map(() =>
        streamed({ message: "Think slowly about budgets", conversation_id: conversation }),
      ),
    );
    expect(racing.map((r) => r.res.status).sort()).toEqual([200, 429]);
    const winner = racing.find((r) => r.res.status === 200)!;
    const loser = racing.find((r) => r.res.status === 429)!;
    const refusal = (await loser.res.json()) as { error: { code: string; details: unknown } };
    expect(refusal.error).toMatchObject({
      code: "chat_token_budget_exhausted",
      details: {
        limit: "SVC_CHAT_TOKEN_BUDGET",
        budget: BUDGET,
        used: BUDGET - 1,
        answer_in_flight: true,
      },
    });
    // While the winner answers, a third is refused too.
    const third = await call(p.url, "POST", "/bots/lab/chat", {
      message: "hi",
      conversation_id: conversation,
    });
    expect([third.status, third.body.error?.code]).toEqual([429, "chat_token_budget_exhausted"]);

    // The person leaves mid-answer: the answer ends and lets the budget go.
    const reader = winner.res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let seen = "";
    while (!seen.includes("event: token")) seen += (await reader.read()).value ?? "";
    winner.leave.abort();
    const after = await eventually(
      "the budget is let go once the answer ends",
      () => call(p.url, "POST", "/bots/lab/chat", { message: "hi", conversation_id: conversation }),
      (r) => r.status !== 429,
    );
    expect(after.status, after.text).toBe(200);
    // That answer spent the rest of the budget: the conversation is over, and says so.
    expect(await tokensOf(conversation)).toBeGreaterThanOrEqual(BUDGET);
    const spent = await call(p.url, "POST", "/bots/lab/chat", {
      message: "hi",
      conversation_id: conversation,
    });
    expect([spent.status, spent.body.error.code]).toEqual([429, "chat_token_budget_exhausted"]);
    expect(spent.body.error.details).not.toHaveProperty("answer_in_flight");
  }, 60_000);

  it("lets the budget go when the model hangs past its deadline", async () => {
    const first = await call(p.url, "POST", "/bots/lab/chat", { message: "hi" });
    const conversation = first.body.events[0].started.conversation_id as string;
    const hung = await call(p.url, "POST", "/bots/lab/chat", {
      message: "hang",
      conversation_id: conversation,
    });
    expect(hung.status).toBe(504);
    const next = await call(p.url, "POST", "/bots/lab/chat", {
      message: "hi",
      conversation_id: conversation,
    });
    expect(next.status, next.text).toBe(200);
  });
});
