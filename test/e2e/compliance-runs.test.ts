import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { as } from "../support/paper.js";
import { call, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const LIMITS = {
  max_order_units: 5,
  max_order_notional: 200_000,
  price_collar_pct: 5,
  max_orders_per_window: 10,
  throttle_window_s: 60,
  duplicate_window_s: 30,
  restricted_symbols: ["XYZ"],
  capital_limit: 10_000_000,
  credit_limit: 1_000_000,
};

interface Case {
  name: string;
  article: string;
  expected: string;
  observed: string;
  passed: boolean;
}

describe("RTS 6 conformance (Art. 6) and stress (Art. 10) runs, through the API", () => {
  let p: RunningPlatform;
  const hashes: Record<string, string> = {};
  const runIds: string[] = [];

  async function bot(
    slug: string,
    risk: Record<string, unknown>,
    engine: Record<string, unknown> = {},
  ): Promise<void> {
    const created = await call(
      p.url,
      "POST",
      "/bots",
      {
        name: slug,
        slug,
        kind: "trading",
        universe: { symbols: ["BTC-USD"] },
        strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
        engine: { initial_cash: 100_000, position_size: 0.5, ...engine },
        risk,
      },
      as("alice"),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    hashes[slug] = created.body.spec_hash;
  }

  /** Starts a run through the compliance route and waits for the stored run to complete. */
  async function run(slug: string, what: "conformance" | "stress", body: object = {}) {
    const started = await call(p.url, "POST", `/bots/${slug}/${what}`, body, as("alice"));
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body).toMatchObject({
      article: what === "conformance" ? "RTS 6 Art. 6" : "RTS 6 Art. 10",
      version: 1,
      version_hash: hashes[slug],
    });
    expect(["pending", "running"]).toContain(started.body.status);
    runIds.push(started.body.run_id);
    const done = await eventually(
      `the ${what} run of ${slug} completes`,
      () => call(p.url, "GET", started.body.results.href),
      (r) => r.status === 200 && r.body.status !== "pending" && r.body.status !== "running",
      15_000,
    );
    expect(done.body.status, JSON.stringify(done.body)).toBe("completed");
    expect(done.body).toMatchObject({
      id: started.body.run_id,
      task_id: started.body.task_id,
      version: 1,
      version_hash: hashes[slug],
      bot_slug: slug,
    });
    expect(done.body.progress.done).toBe(done.body.progress.total);
    return done.body;
  }

  beforeAll(async () => {
    p = await startTestPlatform("pglite");
    await bot("cf-good", LIMITS);
    await bot("cf-no-collar", { ...LIMITS, price_collar_pct: 0 });
    await bot("cf-no-thresholds", { ...LIMITS, capital_limit: 0, credit_limit: 0 });
    // Fills may take a millionth of a bar's volume (5 to 10 BTC a day in the bundled data): the
    // market's volume, doubled by the stress run, binds every fill.
    await bot("cf-thin", LIMITS, { max_volume_participation: 0.000001 });
  });
  afterAll(async () => {
    await p?.close();
  });

  it("conformance of a bot with every control set: every case passes, each with its article", async () => {
    const r = await run("cf-good", "conformance");
    const cases = r.cases as Case[];
    expect(cases.map((c) => c.name)).toEqual([
      "market_order_accepted",
      "cancel_honoured",
      // One case per control of the registry (RISK_CONTROLS), in the order the controls run.
      "restricted_instrument",
      "max_order_units",
      "max_order_notional",
      "price_collar",
      "capital_threshold",
      "credit_threshold",
      "fleet_capital_threshold",
      "fleet_credit_threshold",
      "duplicate_order",
      "message_throttle",
      "kill_switch_drain",
    ]);
    for (const c of cases) {
      expect(c.passed, `${c.name}: ${c.observed}`).toBe(true);
      expect(c.article).toMatch(/RTS 6 Art\.|SEC 15c3-5/);
      expect(c.expected.length).toBeGreaterThan(0);
    }
    // The thresholds (15c3-5 (c)(1)(i)) are breached as crafted; the order value is (c)(1)(ii).
    const byName = new Map(cases.map((c) => [c.name, c]));
    expect(byName.get("capital_threshold")).toMatchObject({
      article: "RTS 6 Art. 15; SEC 15c3-5 (c)(1)(i)",
      passed: true,
      observed: expect.stringMatching(
        /^refused by capital_threshold: limit 10000000, value 20000000/,
      ),
    });
    expect(byName.get("credit_threshold")).toMatchObject({
      article: "RTS 6 Art. 15; SEC 15c3-5 (c)(1)(i)",
      passed: true,
      observed: expect.stringMatching(/^refused by credit_threshold: limit 1000000, value 2\d{6}/),
    });
    expect(byName.get("max_order_notional")!.article).toBe(
      "RTS 6 Art. 15(1)(b); SEC 15c3-5 (c)(1)(ii)",
    );
    expect(cases.find((c) => c.name === "kill_switch_drain")!.article).toBe("RTS 6 Art. 12");
    expect(cases.find((c) => c.name === "price_collar")!.observed).toMatch(
      /refused by price_collar: limit 5/,
    );
    expect(r.passed).toBe(true);
  });

  it("conformance of a bot without a price collar: that case fails, naming the setting", async () => {
    const r = await run("cf-no-collar", "conformance");
    const failed = (r.cases as Case[]).filter((c) => !c.passed);
    expect(failed.map((c) => c.name)).toEqual(["price_collar"]);
    expect(failed[0]!.observed).toMatch(/risk\.price_collar_pct is not set/);
    expect(failed[0]!.article).toBe("RTS 6 Art. 15(1)(a); SEC 15c3-5 (c)(1)(ii)");
    expect(r.passed).toBe(false);
  });

  it("conformance of a bot without capital or credit thresholds fails those cases, naming the settings", async () => {
    const r = await run("cf-no-thresholds", "conformance");
    const failed = (r.cases as Case[]).filter((c) => !c.passed);
    expect(failed.map((c) => c.name)).toEqual(["capital_threshold", "credit_threshold"]);
    expect(failed[0]!.observed).toMatch(
      /no capital_threshold control: risk\.capital_limit is not set/,
    );
    expect(failed[1]!.observed).toMatch(
      /no credit_threshold control: risk\.credit_limit is not set/,
    );
    expect(r.passed).toBe(false);
  });

  it("stress replays the bot's own strategy at twice its peak: controls held, no order lost, latency and headroom recorded", async () => {
    const r = await run("cf-good", "stress");
    const s = r.stress;
    // The bot's own orders (no scripted ones), its clock compressed until they come at twice
    // the peak it sends over the data set at the data set's own pace.
    expect(s.replay).toBe("strategy");
    expect(s.time_compression).toBeGreaterThanOrEqual(2);
    expect(s.achieved_messages_per_second, JSON.stringify(s)).toBeGreaterThanOrEqual(
      s.demanded_messages_per_second,
    );
    expect(s.demanded_rate_reached).toBe(true);
    expect(s.laps).toBeGreaterThanOrEqual(1);
    expect(Number(s.bars_replayed)).toBe(s.laps * 1000);
    expect(s.max_volume_participation).toBe(1);
    expect(s.peak_source).toBe("data_set");
    expect(s.peak_messages_per_second).toBeGreaterThan(0);
    expect(s.peak_multiple).toBe(2);
    expect(s.demanded_messages_per_second).toBeCloseTo(
      2 * Math.max(1, s.peak_messages_per_second),
      9,
    );
    expect(s.replayed_peak_volume).toBeCloseTo(2 * s.peak_volume, 6);
    expect(Number(s.orders_sent)).toBeGreaterThan(0);
    expect(Number(s.orders_accepted) + Number(s.orders_rejected)).toBe(Number(s.orders_sent));
    expect(Number(s.orders_lost ?? 0)).toBe(0);
    expect(s.controls_held).toBe(true);
    // 10 orders a minute allowed, the strategy's orders come several a second of its compressed
    // clock: the throttle must fire (once: the breach disables the bot, later orders are refused
    // as disabled).
    expect(s.throttle_expected, JSON.stringify(s)).toBe(true);
    expect(s.throttle_fired, JSON.stringify(s)).toBe(true);
    expect(s.rejections_by_control.message_throttle).toBe(1);
    expect(s.latency.p50_us).toBeGreaterThan(0);
    expect(s.latency.p50_us).toBeLessThanOrEqual(s.latency.p99_us);
    expect(s.latency.p99_us).toBeLessThanOrEqual(s.latency.max_us);
    expect(s.capacity_messages_per_second).toBeGreaterThan(0);
    expect(s.headroom).toBeCloseTo(
      s.capacity_messages_per_second / s.demanded_messages_per_second,
      1,
    );
    expect(r.passed).toBe(true);
  });

  it("stress at another multiple replays at that multiple", async () => {
    const r = await run("cf-no-collar", "stress", { peak_multiple: 3 });
    expect(r.stress.peak_multiple).toBe(3);
    expect(r.stress.demanded_messages_per_second).toBeCloseTo(
      3 * Math.max(1, r.stress.peak_messages_per_second),
      9,
    );
    expect(r.stress.time_compression).toBeGreaterThanOrEqual(3);
    expect(r.stress.achieved_messages_per_second).toBeGreaterThanOrEqual(
      r.stress.demanded_messages_per_second,
    );
  });

  it("stress holds fills to the bot's share of the bar's volume, times the multiple", async () => {
    const r = await run("cf-thin", "stress");
    const s = r.stress;
    expect(s.max_volume_participation).toBe(0.000001);
    expect(Number(s.fills_volume_limited), JSON.stringify(s)).toBeGreaterThan(0);
    expect(Number(s.orders_cancelled_for_volume)).toBeGreaterThan(0);
    // A market order's rest cancelled for want of volume is accounted for, not lost.
    expect(Number(s.orders_lost ?? 0)).toBe(0);
    expect(s.replayed_peak_volume).toBeCloseTo(2 * s.peak_volume, 6);
    expect(r.passed).toBe(true);
  });

  it("refuses a volume share outside [0, 1], naming the setting", async () => {
    const refused = await call(
      p.url,
      "POST",
      "/bots",
      {
        name: "cf-greedy",
        slug: "cf-greedy",
        kind: "trading",
        universe: { symbols: ["BTC-USD"] },
        strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
        engine: { initial_cash: 100_000, max_volume_participation: 1.5 },
      },
      as("alice"),
    );
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(JSON.stringify(refused.body.error)).toMatch(/max_volume_participation/);
  });

  it("refuses bad input with a 4xx naming the problem, and writes no run", async () => {
    const before = await call(p.url, "GET", "/bots/cf-good/compliance-runs");
    const unknown = await call(p.url, "POST", "/bots/no-such-bot/conformance", {}, as("alice"));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("bot_not_found");
    await call(
      p.url,
      "POST",
      "/bots",
      { name: "cf research", slug: "cf-research", kind: "research" },
      as("alice"),
    );
    const noStrategy = await call(p.url, "POST", "/bots/cf-research/conformance", {}, as("alice"));
    expect(noStrategy.status).toBe(400);
    expect(noStrategy.body.error.details.field).toBe("strategy.family");
    expect(noStrategy.body.error.message).toMatch(/no strategy/);
    const nul = await call(p.url, "POST", "/bots/cf%00good/conformance", {}, as("alice"));
    expect(nul.status).toBe(400);
    expect(JSON.stringify(nul.body)).toMatch(/NUL|bot_ref/);
    for (const m of [1000, 0.5, -2]) {
      const bad = await call(
        p.url,
        "POST",
        "/bots/cf-good/stress",
        { peak_multiple: m },
        as("alice"),
      );
      expect(bad.status, `peak_multiple ${m}`).toBe(400);
      expect(JSON.stringify(bad.body.error)).toMatch(/peak_multiple/);
    }
    const nan = await call(
      p.url,
      "POST",
      "/bots/cf-good/stress",
      { peak_multiple: "NaN" },
      as("alice"),
    );
    expect(nan.status).toBe(400);
    const missing = await call(p.url, "GET", "/bots/cf-good/compliance-runs/not-a-run");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("compliance_run_not_found");
    const after = await call(p.url, "GET", "/bots/cf-good/compliance-runs");
    expect(after.body.items.length).toBe(before.body.items.length);
  });

  it("lists a bot's runs by year and kind, for the annual report", async () => {
    const year = new Date().getUTCFullYear();
    const all = await call(p.url, "GET", `/bots/cf-good/compliance-runs?year=${year}`);
    expect(all.status).toBe(200);
    expect(all.body.items.map((r: { kind: string }) => r.kind).sort()).toEqual([
      "conformance",
      "stress",
    ]);
    for (const r of all.body.items) expect(r.version_hash).toBe(hashes["cf-good"]);
    const stress = await call(
      p.url,
      "GET",
      `/bots/cf-good/compliance-runs?year=${year}&kind=stress`,
    );
    expect(stress.body.items.map((r: { kind: string }) => r.kind)).toEqual(["stress"]);
    const other = await call(p.url, "GET", `/bots/cf-good/compliance-runs?year=${year - 1}`);
    expect(other.body.items ?? []).toEqual([]);
  });

  it("refuses to delete a bot with compliance runs (evidence kept 7 years): it stays, archived", async () => {
    const archived = await call(
      p.url,
      "PUT",
      "/bots/cf-no-thresholds",
      { status: "archived" },
      as("alice"),
    );
    expect(archived.body.status).toBe("archived");
    const refused = await call(p.url, "DELETE", "/bots/cf-no-thresholds", undefined, as("alice"));
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({
      code: "evidence_retained",
      message: expect.stringMatching(
        /has 1 conformance or stress run\(s\), regulatory evidence kept 7 years.*archive it instead/,
      ),
    });
    const year = new Date().getUTCFullYear();
    const runs = await call(p.url, "GET", `/bots/cf-no-thresholds/compliance-runs?year=${year}`);
    expect(runs.body.items).toHaveLength(1);
    // The schema holds the line too: a delete that bypasses the route cannot take the runs along.
    const botId = runs.body.items[0].bot_id as string;
    await expect(
      sql`delete from bots.bots where id = ${botId}::uuid`.execute(p.platform.db.db),
    ).rejects.toThrow(/compliance_runs_bot_id_fkey/);
    expect((await call(p.url, "GET", "/bots/cf-no-thresholds")).status).toBe(200);
  });
});
