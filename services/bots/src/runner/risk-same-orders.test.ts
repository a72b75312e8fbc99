import { describe, expect, it } from "vitest";
import { BacktestRun } from "../engine/event-engine.js";
import { resolveStrategy } from "../engine/strategies/registry.js";
import { generateBars } from "../engine/synthetic-source.js";
import { sliceBars } from "../engine/bars.js";
import type { ExecutionEvent } from "../execution/events.js";
import { RiskGuard, riskLimitsFrom, type RiskLimits } from "../execution/risk-controls/index.js";
import { BotRunner } from "./bot-runner.js";
import type { RunnerEvent } from "./events.js";

const bars = generateBars({ seed: 11, count: 1_500 });
const settings = { initialCash: 250_000, feeBps: 5, slippageBps: 3, positionSize: 0.6 };
const { family, params } = resolveStrategy("ma_crossover", {
  fast: 5,
  slow: 20,
  allow_short: true,
});
const RECORDS = [
  "order_placed",
  "order_filled",
  "order_rejected",
  "position_changed",
  "risk_disabled",
];
const comparable = (events: Array<RunnerEvent | ExecutionEvent>) =>
  events
    .filter((e) => RECORDS.includes(e.type))
    .map((e) => JSON.stringify(e).replace(/"order_id":"[^"]*-o/, '"order_id":"o'));

/** The backtest, fed in chunks of 97 bars so the reference price crosses chunk edges. */
function backtest(limits: RiskLimits): ExecutionEvent[] {
  const events: ExecutionEvent[] = [];
  const emit = (e: ExecutionEvent) => events.push(e);
  const guard = new RiskGuard({ limits, startEquity: settings.initialCash, emit });
  const run = new BacktestRun(family.create(params), settings, {
    onEvent: emit,
    checks: [guard],
    symbol: "BTC-USD",
  });
  for (let from = 0; from < bars.length; from += 97)
    run.feed(
      sliceBars(bars, bars.time[from]!, from + 97 < bars.length ? bars.time[from + 97]! : Infinity),
    );
  run.finish();
  return events;
}

async function paper(limits: RiskLimits): Promise<RunnerEvent[]> {
  const events: RunnerEvent[] = [];
  const runner = new BotRunner({
    symbol: "BTC-USD",
    bars,
    startIndex: 0,
    speed: 0,
    strategy: family.create(params),
    costs: settings,
    broker: { cash: settings.initialCash, units: 0, idPrefix: "paper-1-" },
    risk: { limits, startEquity: settings.initialCash },
    sink: async (batch) => void events.push(...batch),
  });
  expect(await runner.finished()).toBe("finished");
  return events;
}

const refusedBy = (events: Array<RunnerEvent | ExecutionEvent>) =>
  new Set(events.flatMap((e) => (e.type === "order_rejected" ? [e.data.check] : [])));

describe("the risk controls in a backtest and a paper session over the same bars", () => {
  it("refuse the same orders, with the same limits and values", async () => {
    const limits = riskLimitsFrom({
      priceCollarPct: 2.5,
      maxOrderUnits: 1_600,
      duplicateWindowS: 30 * 86_400,
      duplicateTolerancePct: 20,
      creditLimit: 20_000,
    });
    const bt = backtest(limits);
    const session = await paper(limits);
    expect(refusedBy(bt).size).toBeGreaterThanOrEqual(3);
    expect(bt.filter((e) => e.type === "order_filled").length).toBeGreaterThan(10);
    expect(comparable(session)).toEqual(comparable(bt));
  });

  it("disable both at the same throttle breach", async () => {
    const limits = riskLimitsFrom({ maxOrdersPerWindow: 3, throttleWindowS: 10 * 86_400 });
    const bt = backtest(limits);
    const session = await paper(limits);
    expect(bt.filter((e) => e.type === "risk_disabled")).toHaveLength(1);
    expect(refusedBy(bt)).toEqual(new Set(["message_throttle", "risk_disabled"]));
    expect(comparable(session)).toEqual(comparable(bt));
  });
});
