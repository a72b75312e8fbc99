import { describe, expect, it } from "vitest";
import { sliceBars, type Bars } from "../engine/bars.js";
import { BacktestRun } from "../engine/event-engine.js";
import { resolveStrategy } from "../engine/strategies/registry.js";
import { generateBars } from "../engine/synthetic-source.js";
import type { ExecutionEvent } from "../execution/events.js";
import { BotRunner } from "./bot-runner.js";
import type { RunnerEvent, StoredEvent } from "./events.js";
import { foldEvents, snapshotOf, workingOrders } from "./state.js";

// Daily synthetic bars gap at the open, so sizing at the close and filling at the open differ.
const bars = generateBars({ seed: 5, count: 1_500 });
const settings = { initialCash: 250_000, feeBps: 5, slippageBps: 3, positionSize: 0.6 };
const { family, params } = resolveStrategy("ma_crossover", {
  fast: 5,
  slow: 20,
  allow_short: true,
});
const EXECUTION = [
  "order_placed",
  "order_filled",
  "order_cancelled",
  "order_rejected",
  "position_changed",
];
/** Execution records without the session's order id prefix, comparable across runs. */
const trading = (events: Array<RunnerEvent | ExecutionEvent>) =>
  events
    .filter((e) => EXECUTION.includes(e.type))
    .map((e) => JSON.stringify(e).replace(/"order_id":"[^"]*-o/, '"order_id":"o'));
const stored = (events: RunnerEvent[]): StoredEvent[] =>
  events.map((e, i) => ({ seq: i + 1, type: e.type, occurredAt: new Date(0), data: e.data }));

function backtest(): { events: ExecutionEvent[]; finalEquity: number } {
  const events: ExecutionEvent[] = [];
  const run = new BacktestRun(family.create(params), settings, {
    onEvent: (e) => events.push(e),
    symbol: "BTC-USD",
  });
  run.feed(bars);
  return { events, finalEquity: run.finish().finalEquity };
}

async function paper(over: Bars, startIndex: number, from: RunnerEvent[]): Promise<RunnerEvent[]> {
  const state = foldEvents(stored(from));
  const events: RunnerEvent[] = [];
  const runner = new BotRunner({
    symbol: "BTC-USD",
    bars: over,
    startIndex,
    speed: 0,
    strategy: family.create(params),
    costs: settings,
    broker: {
      cash: from.length > 0 ? state.cash : settings.initialCash,
      units: state.positions["BTC-USD"] ?? 0,
      idPrefix: "paper-1-",
      nextOrderId: from.filter((e) => e.type === "order_placed").length + 1,
      openOrders: workingOrders(state.openOrders),
    },
    sink: async (batch) => void events.push(...batch),
  });
  expect(await runner.finished()).toBe("finished");
  return events;
}

const started = (): RunnerEvent => ({
  type: "session_started",
  data: {
    task_id: "paper-1",
    version: 1,
    symbol: "BTC-USD",
    initial_cash: 250_000,
    data_source: "x",
  },
});

describe("a backtest and a paper session of the same strategy over the same bars", () => {
  it("place the same orders, get the same fills and end with the same equity", async () => {
    const bt = backtest();
    const session = [started(), ...(await paper(bars, 0, []))];
    expect(bt.events.filter((e) => e.type === "order_filled").length).toBeGreaterThan(100);
    expect(trading(session)).toEqual(trading(bt.events));
    const snapshot = snapshotOf(foldEvents(stored(session)));
    expect(snapshot.metrics.equity).toBe(bt.finalEquity);
  });

  it("still agree when the session is stopped and resumed from its events half-way", async () => {
    const bt = backtest();
    const first = [started(), ...(await paper(sliceBars(bars, -Infinity, bars.time[700]), 0, []))];
    const session = [...first, ...(await paper(bars, 700, first))];
    expect(trading(session)).toEqual(trading(bt.events));
    expect(snapshotOf(foldEvents(stored(session))).metrics.equity).toBe(bt.finalEquity);
  });
});
