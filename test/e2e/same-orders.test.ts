import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import {
  BacktestRun,
  DEFAULT_DATA_SOURCE,
  engineSettingsFrom,
  loadBars,
  resolveStrategy,
} from "@svc/bots/engine";
import { as } from "../support/paper.js";
import { call, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

// A strategy that goes long and short (so flips close, then open), part-sized, with costs.
const spec = {
  name: "same orders",
  slug: "same-orders",
  kind: "trading",
  universe: { symbols: ["BTC-USD"] },
  strategy: { family: "ma_crossover", parameters: { fast: 5, slow: 20, allow_short: true } },
  engine: { initial_cash: 100000, fee_bps: 5, slippage_bps: 3, position_size: 0.6 },
};
const EXECUTION = ["order_placed", "order_filled", "order_rejected", "position_changed"];
interface Event {
  seq: string;
  type: string;
  data: Record<string, unknown>;
}
/** An execution record as both sides report it: the paper session's order id prefix removed. */
const comparable = (e: { type: string; data: Record<string, unknown> }) => ({
  type: e.type,
  data: {
    ...e.data,
    ...(typeof e.data.order_id === "string"
      ? { order_id: e.data.order_id.replace(/^.*-(o\d+)$/, "$1") }
      : {}),
  },
});

describe("the same strategy over the same bars, as a backtest and as a paper session", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("pglite");
  });
  afterAll(async () => {
    await p?.close();
  });

  it("places the same orders, gets the same fills and ends with the same equity", async () => {
    const bot = (await call(p.url, "POST", "/bots", spec, as("alice"))).body;

    // The backtest, through the API.
    const backtest = await call(p.url, "POST", "/bots/same-orders/backtest", {
      data_source: DEFAULT_DATA_SOURCE,
    });
    expect(backtest.status).toBe(202);
    const done = await eventually(
      "the backtest finishes",
      async () =>
        (await call(p.url, "GET", "/bots/same-orders/deployments")).body.items.find(
          (d: { task_id: string }) => d.task_id === backtest.body.task_id,
        ),
      (d) => d?.status === "success" || d?.status === "failed",
      30_000,
    );
    expect(done.status).toBe("success");
    const summary = done.result_summary;

    // The paper session, through promotion and the API, at full speed over the same bars.
    await eventually(
      "promotion knows the bot",
      () =>
        sql<{
          n: number;
        }>`select count(*)::int as n from promotion.known_bot_versions where slug = 'same-orders'`.execute(
          p.platform.db.db,
        ),
      (r) => r.rows[0]!.n > 0,
    );
    const submitted = await call(
      p.url,
      "POST",
      "/promotion/requests",
      {
        request_id: "same-orders",
        kind: "strategy",
        artifact: { bot_ref: "same-orders", version: 1, version_hash: bot.spec_hash },
        validation: { verdict: "PASS" },
        risk: { decision: "APPROVE" },
      },
      as("alice"),
    );
    expect(submitted.body.status).toBe("pending");
    const token = (
      await call(p.url, "POST", "/promotion/requests/same-orders/approve", {}, as("bob"))
    ).body.approved_promotion;
    const started = await call(p.url, "POST", "/bots/same-orders/paper/start", {
      approved_promotion: token,
      data_source: DEFAULT_DATA_SOURCE,
      // More bars per second than a timer can pace: the session runs as fast as it records.
      speed: 1_000_000,
    });
    expect(started.status).toBe(202);
    await eventually(
      "the paper session runs out of bars",
      async () =>
        (await call(p.url, "GET", "/bots/same-orders/deployments")).body.items.find(
          (d: { task_id: string }) => d.task_id === started.body.task_id,
        )?.status,
      (s) => s === "success",
      60_000,
    );
    const recorded: Event[] = [];
    for (let cursor = "0"; cursor;) {
      const page = await call(
        p.url,
        "GET",
        `/bots/same-orders/state/events?after_seq=${cursor}&limit=1000`,
      );
      recorded.push(...page.body.items);
      cursor = page.body.next_cursor;
    }
    const snapshot = (await call(p.url, "GET", "/bots/same-orders/state/snapshot")).body;

    // What the backtest engine did, order by order (the API keeps only a backtest's summary).
    const bars = await loadBars(DEFAULT_DATA_SOURCE);
    const { family, params } = resolveStrategy("ma_crossover", spec.strategy.parameters);
    const settings = engineSettingsFrom({
      initialCash: 100000,
      feeBps: 5,
      slippageBps: 3,
      positionSize: 0.6,
    });
    const engineEvents: Array<{ type: string; data: Record<string, unknown> }> = [];
    const run = new BacktestRun(family.create(params), settings, {
      onEvent: (e) => engineEvents.push(e),
      symbol: "BTC-USD",
    });
    run.feed(bars);
    const metrics = run.finish();
    // ...is what the API's backtest did: the same result to the last rounded digit.
    expect(summary.final_equity).toBeCloseTo(metrics.finalEquity, 6);
    expect(summary.fees).toBeCloseTo(metrics.fees, 6);
    expect(summary.trades).toBe(metrics.trades);

    // Same orders and fills, in the same order.
    const paper = recorded.filter((e) => EXECUTION.includes(e.type)).map(comparable);
    expect(paper.filter((e) => e.type === "order_filled").length).toBeGreaterThan(50);
    expect(paper).toEqual(engineEvents.map(comparable));
    // Same equity, at the end and after every bar.
    expect(recorded.filter((e) => e.type === "bar_received")).toHaveLength(bars.length);
    expect(snapshot.metrics.equity).toBeCloseTo(summary.final_equity, 6);
    let cash = 100000;
    let units = 0;
    const equity: number[] = [];
    for (const e of recorded) {
      if (e.type === "order_filled") {
        const d = e.data as { side: string; units: number; price: number; fee: number };
        const signed = d.side === "buy" ? d.units : -d.units;
        cash -= signed * d.price + d.fee;
        units += signed;
      }
      // Each bar's equity is taken at its close, after the fills at its open.
      if (e.type === "bar_received") equity.push(NaN);
      if (equity.length > 0)
        equity[equity.length - 1] = cash + units * bars.close[equity.length - 1]!;
    }
    const trial = await sql<{
      daily: number[];
    }>`select jsonb_path_query_array(r.daily_returns::jsonb, '$[*].value') as daily from bots.trial_ledger t join bots.bots b on b.id = t.bot_id join bots.backtest_results r on r.deployment_id = t.trial_id where b.slug = 'same-orders'`.execute(
      p.platform.db.db,
    );
    const daily = trial.rows[0]!.daily;
    expect(daily).toHaveLength(bars.length);
    daily.forEach((r, i) =>
      expect(r, `return of day ${i}`).toBeCloseTo(equity[i]! / (equity[i - 1] ?? 100000) - 1, 9),
    );
  }, 120_000);
});
