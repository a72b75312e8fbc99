import { describe, expect, it } from "vitest";
import { sliceBars, type Bars } from "../engine/bars.js";
import { alignBars, type AlignedBars } from "../engine/portfolio/aligned.js";
import { PortfolioRun } from "../engine/portfolio/portfolio-run.js";
import { resolveStrategy } from "../engine/strategies/registry.js";
import { generateBars } from "../engine/synthetic-source.js";
import type { ExecutionEvent } from "../execution/events.js";
import type { RunnerEvent, StoredEvent } from "./events.js";
import { PortfolioRunner } from "./portfolio-runner.js";
import { foldEvents, portfolioAccounts, snapshotOf } from "./state.js";

const SYMBOLS = ["AAPL", "MSFT", "GOOG"];
const DAY = 86_400_000;
/** Three walks; GOOG has no bars for a fortnight in the middle (a gap, never filled in). */
const series = (cut = Infinity): AlignedBars =>
  alignBars(
    new Map(
      SYMBOLS.map((s, k) => {
        let b: Bars = generateBars({ seed: 11 + k, count: 800, startMs: 0, intervalMs: DAY });
        if (s === "GOOG") {
          const before = sliceBars(b, -Infinity, 400 * DAY);
          const after = sliceBars(b, 414 * DAY, Infinity);
          b = concat(before, after);
        }
        return [s, sliceBars(b, -Infinity, cut)];
      }),
    ),
  );
const settings = { initialCash: 300_000, feeBps: 5, slippageBps: 3, positionSize: 0.9 };
const { family, params } = resolveStrategy("ma_crossover", { fast: 5, slow: 20 });
const strategies = () => SYMBOLS.map(() => family.create(params));

const EXECUTION = ["order_placed", "order_filled", "order_cancelled", "position_changed"];
const trading = (events: Array<RunnerEvent | ExecutionEvent>) =>
  events
    .filter((e) => EXECUTION.includes(e.type))
    .map((e) => JSON.stringify(e).replace(/"order_id":"paper-1-/, '"order_id":"'));
const stored = (events: RunnerEvent[]): StoredEvent[] =>
  events.map((e, i) => ({ seq: i + 1, type: e.type, occurredAt: new Date(0), data: e.data }));

function backtest(): ExecutionEvent[] {
  const events: ExecutionEvent[] = [];
  const run = new PortfolioRun(settings, SYMBOLS, { onEvent: (e) => events.push(e) });
  run.runStrategies(series(), strategies());
  return events;
}

async function paper(bars: AlignedBars, startIndex: number, from: RunnerEvent[]) {
  const state = foldEvents(stored(from));
  const events: RunnerEvent[] = [];
  const runner = new PortfolioRunner({
    bars,
    startIndex,
    speed: 0,
    strategies: strategies(),
    settings: { ...settings, initialCash: from.length > 0 ? state.cash : settings.initialCash },
    accounts: portfolioAccounts(SYMBOLS, state, from),
    idPrefix: "paper-1-",
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
    symbol: "AAPL",
    symbols: SYMBOLS,
    initial_cash: settings.initialCash,
    data_source: "x",
  },
});

describe("a portfolio backtest and a paper session of it over the same bars", () => {
  it("place the same orders of every symbol and record each symbol's bars, none filled in", async () => {
    const bt = backtest();
    const session = [started(), ...(await paper(series(), 0, []))];
    for (const s of SYMBOLS)
      expect(
        bt.filter((e) => e.type === "order_filled" && (e.data as { symbol?: string }).symbol === s)
          .length,
        s,
      ).toBeGreaterThan(10);
    expect(trading(session)).toEqual(trading(bt));
    const goog = session.filter((e) => e.type === "bar_received" && e.data.symbol === "GOOG");
    expect(goog).toHaveLength(786);
    const state = foldEvents(stored(session));
    expect(state.lastPrices.GOOG).toBe(series().bars[2]!.close[799]);
  });

  it("still agree when the session is stopped and resumed from its events half-way", async () => {
    const bt = backtest();
    const first = [started(), ...(await paper(series(500 * DAY), 0, []))];
    const held = snapshotOf(foldEvents(stored(first))).positions;
    expect(Object.keys(held).length).toBeGreaterThan(0);
    const session = [...first, ...(await paper(series(), 500, first))];
    // The same orders to 12 digits: the resumed session's one cash balance is its events' running
    // sum, the backtest's the start plus each symbol's flows, so their last bits may differ.
    expect(trading(session).map(digits)).toEqual(trading(bt).map(digits));
  });
});

describe("a halt of a portfolio paper session", () => {
  /** Runs until a step sends orders of at least two symbols, then halts in `mode`. */
  async function haltedAfterOrders(mode: "cancel" | "flatten") {
    const events: RunnerEvent[] = [];
    let halted: Promise<void> | undefined;
    let runner: PortfolioRunner | undefined = undefined;
    runner = new PortfolioRunner({
      bars: series(),
      startIndex: 0,
      speed: 0,
      strategies: strategies(),
      settings,
      accounts: {},
      idPrefix: "paper-1-",
      sink: async (batch) => {
        events.push(...batch);
        // The first step's batch comes while the runner is still being built.
        if (!runner) return;
        const placed = new Set(
          batch.flatMap((e) =>
            e.type === "order_placed" ? [(e.data as { symbol?: string }).symbol] : [],
          ),
        );
        const held = Object.values(runner.positions).filter((u) => u !== 0).length;
        if (!halted && placed.size >= 2 && (mode === "cancel" || held >= 2))
          halted = runner.halt("drill", mode);
      },
    });
    expect(await runner.finished()).toBe("stopped");
    await halted;
    return { events, runner };
  }

  it("cancels every symbol's working orders, and fills none after", async () => {
    const { events, runner } = await haltedAfterOrders("cancel");
    const at = events.findIndex((e) => e.type === "phase_changed" && e.data.phase === "Draining");
    expect(at).toBeGreaterThan(0);
    const filled = new Set(
      events.flatMap((e) => (e.type === "order_filled" ? [e.data.order_id] : [])),
    );
    const working = events
      .slice(0, at)
      .flatMap((e) => (e.type === "order_placed" && !filled.has(e.data.order_id) ? [e] : []));
    expect(
      new Set(working.map((e) => (e.data as { symbol?: string }).symbol)).size,
    ).toBeGreaterThanOrEqual(2);
    const cancelled = events
      .slice(at)
      .flatMap((e) => (e.type === "order_cancelled" ? [e.data.order_id] : []));
    expect(cancelled.sort()).toEqual(working.map((e) => e.data.order_id).sort());
    expect(events.slice(at).some((e) => e.type === "order_filled")).toBe(false);
    expect(runner.phase).toBe("Stopped");
  });

  it("flatten closes every symbol's position", async () => {
    const { events, runner } = await haltedAfterOrders("flatten");
    expect(Object.values(runner.positions).every((u) => u === 0)).toBe(true);
    const at = events.findIndex((e) => e.type === "phase_changed" && e.data.phase === "Draining");
    const closed = events
      .slice(at)
      .flatMap((e) => (e.type === "order_filled" ? [(e.data as { symbol?: string }).symbol] : []));
    expect(new Set(closed).size).toBeGreaterThanOrEqual(2);
    expect(snapshotOf(foldEvents(stored([started(), ...events]))).positions).toEqual({});
  });
});

const digits = (json: string) =>
  json.replace(/-?\d+\.\d+(e[-+]?\d+)?/g, (n) => Number(n).toPrecision(12));

function concat(a: Bars, b: Bars): Bars {
  const cols = ["time", "open", "high", "low", "close", "volume"] as const;
  const out = Object.fromEntries(
    cols.map((k) => {
      const c = new Float64Array(a.length + b.length);
      c.set(a[k].subarray(0, a.length));
      c.set(b[k].subarray(0, b.length), a.length);
      return [k, c];
    }),
  ) as unknown as Bars;
  return { ...out, length: a.length + b.length };
}
