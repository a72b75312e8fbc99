import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { decodeJwt } from "jose";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentClaims, startTestIdp, type TestIdp } from "@svc/lib/auth/testing";
import type { RunningPlatform } from "@svc/all-in-one";
import { grantMembership } from "../support/memberships.js";
import {
  CLAIMS_NAMESPACE,
  startOidcPlatform,
  testUser,
  type OidcPlatform,
} from "../support/oidc-platform.js";
import { call, startTestPlatform } from "../support/test-platform.js";
import { createCodeBot } from "../support/strategy-code.js";
import { eventually } from "../support/until.js";

const invokeAt = (url: string, tool: string, args: unknown, token: string) =>
  call(url, "POST", `/mcp/data/tools/${tool}/invoke`, args, {
    authorization: `Bearer ${token}`,
  });

/**
 * The MCP data tools through the gateway, called by an agent with a token the agent broker got
 * from the development provider by exchanging carol's: real reads through the owning services,
 * the scope enforced, the actor named in the answer and every call audited with its delegation.
 */
describe("MCP data tools", () => {
  let o: OidcPlatform;
  let agent: string;
  const invoke = (tool: string, args: unknown, token = agent) =>
    invokeAt(o.p.url, tool, args, token);

  beforeAll(async () => {
    o = await startOidcPlatform("pglite", [
      // The provider delegates only what carol holds: both MCP scopes, for the write-only case.
      testUser("carol", [
        "write:bots",
        "run:bots",
        "read:bots",
        "read:audit",
        "read:mcp:data",
        "write:mcp:data",
        "read:mcp:codebase",
      ]),
    ]);
    const carol = await o.tokens.user("carol");
    const exchanged = await o.tokens.exchange(carol, { scope: "read:mcp:data" });
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    agent = String(exchanged.body.access_token);
    const created = await call(
      o.p.url,
      "POST",
      "/bots",
      {
        name: "Mcp bot",
        slug: "mcp-bot",
        kind: "research",
        strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
      },
      { authorization: `Bearer ${carol}` },
    );
    expect(created.status, created.text).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await o?.close();
  });

  it("reads bots through the bots service and names the agent and the person", async () => {
    const listed = await invoke("bots.list", {});
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.actor).toEqual({
      agent_subject: "agent|research",
      on_behalf_of_sub: "dev|carol",
    });
    expect(listed.body.result.items.map((b: { slug: string }) => b.slug)).toEqual(["mcp-bot"]);
    const one = await invoke("bots.get", { bot_ref: "mcp-bot" });
    expect(one.body.result.bot).toMatchObject({ slug: "mcp-bot", current_version: 1 });
    expect(one.body.result.state).toHaveProperty("positions");
    expect((await invoke("backtests.results", { bot_ref: "mcp-bot" })).body.result).toEqual({
      backtests: [],
      next_page_token: "",
    });
  });

  it("reads the TrialLedger: each backtest a trial, N counted, as GET /bots/{ref}/trials says", async () => {
    expect((await invoke("trials.ledger", { bot_ref: "mcp-bot" })).body.result).toEqual({
      items: [],
      trial_count: 0,
      next_page_token: "",
    });
    const carol = { authorization: `Bearer ${await o.tokens.user("carol")}` };
    const started = await call(o.p.url, "POST", "/bots/mcp-bot/backtest", {}, carol);
    expect(started.status, started.text).toBe(202);
    await eventually(
      "the backtest finishes",
      () => call(o.p.url, "GET", "/bots/mcp-bot/deployments", undefined, carol),
      (r) => r.body.items?.[0]?.status === "success",
      90_000,
    );
    const ledger = await invoke("trials.ledger", { bot_ref: "mcp-bot" });
    expect(ledger.status, ledger.text).toBe(200);
    expect(ledger.body.result.trial_count).toBe(1);
    expect(ledger.body.result.items[0]).toMatchObject({
      version: 1,
      strategy_family: expect.any(String),
      observations: expect.any(Number),
    });
    expect(Number.isFinite(ledger.body.result.items[0].sharpe)).toBe(true);
    const direct = await call(o.p.url, "GET", "/bots/mcp-bot/trials", undefined, carol);
    expect(direct.body.trial_count).toBe(1);
    expect(direct.body.items[0].trial_id).toBe(ledger.body.result.items[0].trial_id);
    expect((await invoke("trials.ledger", { bot_ref: "nope" })).status).toBe(404);
  });

  it("answers 404 listing the tools, 404 for a missing bot, 400 for bad arguments", async () => {
    const unknown = await invoke("orders.place", {});
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "mcp_tool_not_found"]);
    expect(unknown.body.error.details.tools.map((t: { name: string }) => t.name)).toEqual([
      "bots.list",
      "bots.get",
      "backtests.results",
      "trials.ledger",
      "promotion.request",
      "codebase.strategy_source",
      "backtests.launch",
    ]);
    expect((await invoke("bots.get", { bot_ref: "nope" })).status).toBe(404);
    for (const args of [{}, { bot_ref: 7 }, { bot_ref: "a\u0000b" }, { bot_ref: null }]) {
      const bad = await invoke("bots.get", args);
      expect([bad.status, bad.body.error.details.field]).toEqual([400, "bot_ref"]);
    }
    expect((await invoke("bots.list", { limit: 1e12 })).status).toBe(400);
  });

  it("serves a version's strategy source to an agent holding read:mcp:codebase, and to no other", async () => {
    const carol = await o.tokens.user("carol");
    await createCodeBot(o.p.url, "Mcp code", { authorization: `Bearer ${carol}` });
    const reader = await o.tokens.exchange(carol, { scope: "read:mcp:data read:mcp:codebase" });
    expect(reader.status, JSON.stringify(reader.body)).toBe(200);
    const token = String(reader.body.access_token);
    const source = await invoke(
      "codebase.strategy_source",
      { bot_ref: "mcp-code", version: 1 },
      token,
    );
    expect(source.status, source.text).toBe(200);
    const rest = await call(o.p.url, "GET", "/bots/mcp-code/versions/1/strategy", undefined, {
      authorization: `Bearer ${carol}`,
    });
    expect(source.body.result).toEqual(rest.body);
    expect(source.body.result.code.files[0].content).toMatch(/defineStrategy/);

    const dataOnly = await invoke("codebase.strategy_source", { bot_ref: "mcp-code", version: 1 });
    expect([dataOnly.status, dataOnly.body.error.details.scope]).toEqual([
      403,
      "read:mcp:codebase",
    ]);
    for (const version of [0, 1.5, "1", null]) {
      const bad = await invoke("codebase.strategy_source", { bot_ref: "mcp-code", version }, token);
      expect([bad.status, bad.body.error.details?.field]).toEqual([400, "version"]);
    }
  });

  it("needs read:mcp:data", async () => {
    const writeOnly = await o.tokens.exchange(await o.tokens.user("carol"), {
      scope: "write:mcp:data",
    });
    expect(writeOnly.status, JSON.stringify(writeOnly.body)).toBe(200);
    const refused = await invoke("bots.list", {}, String(writeOnly.body.access_token));
    expect([refused.status, refused.body.error.details.scope]).toEqual([403, "read:mcp:data"]);
  });

  it("audits every call with its delegation", async () => {
    const auditor = await o.tokens.user("carol");
    const rows = await eventually(
      "the tool calls are in the audit trail",
      async () =>
        (
          await call(o.p.url, "GET", "/admin/audit-events?actor=agent%7Cresearch", undefined, {
            authorization: `Bearer ${auditor}`,
          })
        ).body.items as Array<{
          action: string;
          outcome: string;
          details: Record<string, unknown>;
        }>,
      (items) => items.some((e) => e.outcome === "failed"),
    );
    // The person's internal user id, as the post-login sync gave it to carol's token.
    const carolId = decodeJwt(auditor)[`${CLAIMS_NAMESPACE}internal_user_id`];
    expect(carolId).toEqual(expect.any(String));
    expect(rows.find((e) => e.action === "mcp.tool.bots.list")?.details.delegation).toEqual({
      agent_subject: "agent|research",
      on_behalf_of_user_id: carolId,
      on_behalf_of_sub: "dev|carol",
      profile: "svc-agent-delegation",
    });
  });
});

// The provider's delegation profile never names an actor outside agent| (it answers
// invalid_grant), so a token whose act names a person can only be forged: it stays hand-signed,
// on a platform that trusts the hand-signing provider.
describe("MCP data tools refuse an act that names no agent (hand-signed)", () => {
  let idp: TestIdp;
  let p: RunningPlatform;
  beforeAll(async () => {
    idp = await startTestIdp();
    p = await startTestPlatform("pglite", {
      SVC_AUTH_PROVIDER: "oidc",
      SVC_AUTH_OIDC_ISSUER: idp.issuer,
      SVC_AUTH_OIDC_AUDIENCE: idp.audience,
      SVC_AUTH_AGENT_TOKEN_EXCHANGE_ENABLED: "true",
    });
    await grantMembership(p, "user|carol");
  }, 60_000);
  afterAll(async () => {
    await p?.close();
    await idp?.stop();
  });

  it("answers 401 to act.sub user|mallory, and serves the same call from an agent", async () => {
    const forged = await idp.sign(
      agentClaims("user|carol", "user|mallory", ["read:mcp:data"], idp.issuer),
    );
    expect((await invokeAt(p.url, "bots.list", {}, forged)).status).toBe(401);
    // The same claims with an agent's act get in: the refusal is the act's, nothing else.
    const genuine = await idp.sign(
      agentClaims("user|carol", "agent|research-1", ["read:mcp:data"], idp.issuer),
    );
    expect((await invokeAt(p.url, "bots.list", {}, genuine)).status).toBe(200);
  });
});

/**
 * An agent reaches every item of a list tool, page by page, through the platform's MCP endpoint
 * (a standard client over streamable HTTP), as the REST list routes page: `page_token` in,
 * `next_page_token` out, empty on the last page; a token that is not the previous answer's is a
 * 400 invalid_argument naming `page_token`.
 */
describe("MCP list tools page to the last item", () => {
  let idp: TestIdp;
  let p: RunningPlatform;
  let agent: Client;
  const SEEDED = 1_005;
  const botId = "6f1c2a4e-0b1d-4c7e-9a55-1d2e3f4a5b6c";

  const tool = async (name: string, args: Record<string, unknown>) => {
    const r = await agent.callTool({ name, arguments: args });
    const body = JSON.parse((r.content as Array<{ text: string }>)[0]!.text);
    return { isError: r.isError === true, body };
  };
  /** Every page of a tool, following next_page_token; the pages' items, in order. */
  const walk = async (name: string, args: Record<string, unknown>, key: string) => {
    const pages: string[][] = [];
    let token = "";
    do {
      const r = await tool(name, token ? { ...args, page_token: token } : args);
      expect(r.isError, JSON.stringify(r.body)).toBe(false);
      pages.push(r.body[key].map((i: Record<string, string>) => i.slug ?? i.trial_id ?? i.id));
      token = r.body.next_page_token;
      // A tool that ignored page_token would answer the first page again and again.
      expect(pages.length, `${name} pages`).toBeLessThanOrEqual(10);
    } while (token);
    return pages;
  };

  beforeAll(async () => {
    idp = await startTestIdp();
    p = await startTestPlatform("pglite", {
      SVC_AUTH_PROVIDER: "oidc",
      SVC_AUTH_OIDC_ISSUER: idp.issuer,
      SVC_AUTH_OIDC_AUDIENCE: idp.audience,
      SVC_AUTH_AGENT_TOKEN_EXCHANGE_ENABLED: "true",
    });
    await grantMembership(p, "user|carol");
    const db = p.platform.db.db;
    await sql`insert into bots.bots (id, slug, name, kind, status, fleet, current_version, spec_hash, spec, created_by, created_at)
      select gen_random_uuid(), 'seeded-' || lpad(g::text, 4, '0'), 'seeded ' || g, 'research', 'draft', null, 1, 'h',
             jsonb_build_object('name', 'seeded ' || g), 'test', timestamptz '2026-01-01' + g * interval '1 second'
      from generate_series(1, ${SEEDED}) g`.execute(db);
    await sql`insert into bots.bots (id, slug, name, kind, status, fleet, current_version, spec_hash, spec, created_by, created_at)
      values (${botId}, 'busy', 'busy', 'research', 'draft', null, 1, 'h', '{"name": "busy"}', 'test', now())`.execute(
      db,
    );
    // Five backtests, a paper session among them (not a backtest), and five trials.
    await sql`insert into bots.bot_deployments (id, bot_id, version, target, status, task_id, request, created_at)
      select gen_random_uuid(), ${botId}, 1, case when g = 3 then 'paper' else 'backtest' end,
             case when g = 3 then 'halted' else 'success' end, 't-' || g, '{}',
             timestamptz '2026-02-01' + g * interval '1 second'
      from generate_series(1, 6) g`.execute(db);
    await sql`insert into bots.trial_ledger (trial_id, bot_id, version, spec_hash, strategy_family, parameters, data_source, observations, sharpe, recorded_at)
      select gen_random_uuid(), ${botId}, 1, 'h', 'ma_crossover', '{}', 'csv:x', 0, 0,
             timestamptz '2026-02-01' + g * interval '1 second'
      from generate_series(1, 5) g`.execute(db);
    const token = await idp.sign(
      agentClaims("user|carol", "agent|research-1", ["read:mcp:data"], idp.issuer),
    );
    agent = new Client({ name: "paging-test", version: "1.0.0" });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`${p.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await agent?.close();
    await p?.close();
    await idp?.stop();
  });

  it("lists every bot past the first 1,000, each once, the last page's token empty", async () => {
    const pages = await walk("bots.list", { limit: 1000 }, "items");
    expect(pages.map((pg) => pg.length)).toEqual([1000, SEEDED + 1 - 1000]);
    const all = pages.flat();
    expect(new Set(all).size).toBe(SEEDED + 1);
    expect(all.at(-1)).toBe("busy");
    // The first call without limit is a page of 100, and says there is more.
    const first = await tool("bots.list", {});
    expect(first.body.items).toHaveLength(100);
    expect(first.body.next_page_token).not.toBe("");
    // The token comes first, so an answer cut short (as the research chat cuts one) keeps it.
    expect(Object.keys(first.body)[0]).toBe("next_page_token");
  });

  it("pages a bot's backtests and its trials, every one reached", async () => {
    const backtests = await walk("backtests.results", { bot_ref: "busy", limit: 2 }, "backtests");
    // Pages of two deployments: the paper session is kept out of the page it is on.
    expect(backtests.map((pg) => pg.length)).toEqual([2, 1, 2]);
    expect(new Set(backtests.flat()).size).toBe(5);
    const trials = await walk("trials.ledger", { bot_ref: "busy", limit: 2 }, "items");
    expect(trials.map((pg) => pg.length)).toEqual([2, 2, 1]);
    expect(new Set(trials.flat()).size).toBe(5);
  });

  it("refuses a page token that is not the previous answer's, naming page_token", async () => {
    const botsToken = (await tool("bots.list", { limit: 1 })).body.next_page_token;
    for (const [name, args] of [
      ["bots.list", { page_token: "not a token!" }],
      ["bots.list", { page_token: 42 }],
      ["bots.list", { page_token: "x".repeat(513) }],
      // Well-formed base64url, but no token of ours: the bots service refuses it.
      ["bots.list", { page_token: "bm90LWEtdG9rZW4" }],
      // Another list's token.
      ["trials.ledger", { bot_ref: "busy", page_token: botsToken }],
      ["backtests.results", { bot_ref: "busy", page_token: botsToken }],
    ] as const) {
      const r = await tool(name, args);
      expect(r.isError, `${name} ${JSON.stringify(args)}`).toBe(true);
      expect(r.body).toMatchObject({
        status: 400,
        error: { code: "invalid_argument", details: { field: "arguments.page_token" } },
      });
    }
    // The REST route of the same tools names the argument as its body holds it.
    const token = await idp.sign(
      agentClaims("user|carol", "agent|research-1", ["read:mcp:data"], idp.issuer),
    );
    const rest = await invokeAt(p.url, "bots.list", { page_token: "not a token!" }, token);
    expect([rest.status, rest.body.error.code, rest.body.error.details.field]).toEqual([
      400,
      "invalid_argument",
      "page_token",
    ]);
  });
});
