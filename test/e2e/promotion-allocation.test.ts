import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, startTestPlatform } from "../support/test-platform.js";
import { as } from "../support/paper.js";
import { eventually } from "../support/until.js";

const verdicts = { validation: { verdict: "PASS" }, risk: { decision: "APPROVE" } };
const allocation = (id: string, capital: Record<string, number>) => ({
  request_id: id,
  kind: "allocation",
  allocation: { capital, limits: { max_drawdown: 0.1 } },
  ...verdicts,
});
const strategyBot = (slug: string, fleet: string) => ({
  name: slug,
  slug,
  kind: "trading",
  fleet,
  strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
});

describe("allocations cross like strategies: applied by the live plane, promoted, revocable", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("postgres");
  }, 60_000);
  afterAll(async () => {
    await p?.close();
  });

  it("an approved allocation reaches promoted, its capital funds new sessions of the fleet, and revoking it halts them", async () => {
    const bot = (
      await call(p.url, "POST", "/bots", strategyBot("funded", "alloc-fleet"), as("alice"))
    ).body;
    const submitted = await call(
      p.url,
      "POST",
      "/promotion/requests",
      allocation("alloc-1", { "alloc-fleet": 250_000 }),
      as("alice"),
    );
    expect(submitted.body.status).toBe("pending");
    expect(
      (await call(p.url, "POST", "/promotion/requests/alloc-1/approve", {}, as("bob"))).status,
    ).toBe(200);
    await eventually(
      "the allocation is promoted",
      () => call(p.url, "GET", "/promotion/requests/alloc-1"),
      (r) => r.body.status === "promoted",
    );

    await call(
      p.url,
      "POST",
      "/promotion/requests",
      {
        request_id: "funded-s",
        kind: "strategy",
        artifact: { bot_ref: "funded", version: 1, version_hash: bot.spec_hash },
        ...verdicts,
      },
      as("alice"),
    );
    const token = (await call(p.url, "POST", "/promotion/requests/funded-s/approve", {}, as("bob")))
      .body.approved_promotion;
    const started = await call(p.url, "POST", "/bots/funded/paper/start", {
      approved_promotion: token,
      speed: 20,
    });
    expect(started.status).toBe(202);
    const first = await eventually(
      "the session starts",
      () => call(p.url, "GET", "/bots/funded/state/events?limit=1"),
      (r) => r.body.items?.length === 1,
    );
    expect(first.body.items[0]).toMatchObject({
      type: "session_started",
      data: expect.objectContaining({ initial_cash: 250_000 }),
    });

    expect(
      (
        await call(
          p.url,
          "POST",
          "/promotion/requests/alloc-1/revoke",
          { reason: "capital recalled" },
          as("bob"),
        )
      ).body.status,
    ).toBe("revoked");
    await eventually(
      "the session trading the allocation halts",
      () => call(p.url, "GET", "/bots/funded/deployments"),
      (r) => r.body.items[0].status === "halted",
    );
    const active = await sql<{
      n: number;
    }>`select count(*)::int as n from bots.allocations where request_id = 'alloc-1' and active`.execute(
      p.platform.db.db,
    );
    expect(active.rows[0]!.n).toBe(0);
  }, 30_000);
});

describe("the ledger gate of an allocation (SVC_TRIAL_LEDGER_N_ENFORCE)", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("postgres", { SVC_TRIAL_LEDGER_N_ENFORCE: "true" });
  }, 60_000);
  afterAll(async () => {
    await p?.close();
  });

  it("funds only bots with backtests in the ledger, and names what is missing", async () => {
    await call(p.url, "POST", "/bots", strategyBot("tested", "ledger-fleet"), as("alice"));
    await call(p.url, "POST", "/bots", strategyBot("untested", "ledger-fleet"), as("alice"));
    await eventually(
      "the promotion service knows both bots",
      () =>
        sql<{ n: number }>`select count(*)::int as n from promotion.known_bot_versions`.execute(
          p.platform.db.db,
        ),
      (r) => r.rows[0]!.n === 2,
    );
    await call(p.url, "POST", "/bots/tested/backtest", {});
    await eventually(
      "the backtest's trial reaches the ledger",
      () =>
        sql<{ n: number }>`select count(*)::int as n from promotion.trials`.execute(
          p.platform.db.db,
        ),
      (r) => r.rows[0]!.n === 1,
      20_000,
    );

    const fleet = await call(
      p.url,
      "POST",
      "/promotion/requests",
      allocation("fleet-1", { "ledger-fleet": 1_000 }),
      as("alice"),
    );
    expect(fleet.body.status).toBe("denied");
    expect(fleet.body.gates.find((g: { name: string }) => g.name === "trial_ledger")).toMatchObject(
      { passed: false, detail: "bot untested (ledger-fleet) has no backtest in the TrialLedger" },
    );
    const nowhere = await call(
      p.url,
      "POST",
      "/promotion/requests",
      allocation("nowhere-1", { "no-such-fleet": 1_000 }),
      as("alice"),
    );
    expect(nowhere.body.gates.find((g: { name: string }) => g.name === "trial_ledger").detail).toBe(
      "no-such-fleet names no bot or fleet the live plane knows",
    );
    const one = await call(
      p.url,
      "POST",
      "/promotion/requests",
      allocation("tested-1", { tested: 1_000 }),
      as("alice"),
    );
    expect(one.body.status).toBe("pending");
    expect(one.body.gates.find((g: { name: string }) => g.name === "trial_ledger")).toMatchObject({
      passed: true,
      detail: "every funded bot has backtests in the ledger: tested N 1",
    });
  }, 40_000);
});
