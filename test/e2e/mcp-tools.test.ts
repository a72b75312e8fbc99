import { decodeJwt } from "jose";
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
      testUser("carol", ["write:bots", "run:bots", "read:bots", "read:audit"]),
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
      30_000,
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
      "backtests.launch",
    ]);
    expect((await invoke("bots.get", { bot_ref: "nope" })).status).toBe(404);
    for (const args of [{}, { bot_ref: 7 }, { bot_ref: "a\u0000b" }, { bot_ref: null }]) {
      const bad = await invoke("bots.get", args);
      expect([bad.status, bad.body.error.details.field]).toEqual([400, "bot_ref"]);
    }
    expect((await invoke("bots.list", { limit: 1e12 })).status).toBe(400);
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
