import { describe, expect, it } from "vitest";
import {
  allocateBars,
  barsAt,
  BacktestRun,
  EngineInputError,
  generateBars,
  loadBars,
  resolveStrategy,
  vectorisedRun,
  type Bars,
  type EngineSettings,
  type ExecutionEvent,
  type RunMetrics,
} from "./index.js";

/** One run fed in chunks of `chunk` bars (not a multiple of the engine's blocks), with its records. */
function run(
  make: (onEvent: (e: ExecutionEvent) => void) => BacktestRun,
  bars: Bars,
  chunk: number,
): { metrics: RunMetrics; events: ExecutionEvent[] } {
  const events: ExecutionEvent[] = [];
  const r = make((e) => events.push(e));
  for (let at = 0; at < bars.length; at += chunk)
    r.feed(barsAt(bars, at, Math.min(bars.length, at + chunk)));
  return { metrics: r.finish(), events };
}

/** Both paths over the same bars: every figure, curve point, trade and order record. */
function both(
  name: string,
  raw: Record<string, unknown>,
  bars: Bars,
  s: EngineSettings,
  chunk: number,
) {
  const { family, params } = resolveStrategy(name, raw);
  const event = run(
    (onEvent) => new BacktestRun(family.create(params), s, { onEvent }),
    bars,
    chunk,
  );
  const vector = run((onEvent) => vectorisedRun(family, params, s, { onEvent }), bars, chunk);
  return { event, vector };
}

const costly: EngineSettings = { initialCash: 1e6, feeBps: 4, slippageBps: 3, positionSize: 0.8 };
const bot: EngineSettings = { ...costly, maxVolumeParticipation: 1 };

describe("vectorised and event-driven paths give the same run to the last bit", () => {
  const daily = generateBars({ seed: 11, count: 3_000 });
  const minutes = generateBars({ seed: 2024, count: 60_000, intervalMs: 60_000 });
  const hours = generateBars({ seed: 5, count: 20_000, intervalMs: 3_600_000, startPrice: 3 });
  it.each([
    ["ma_crossover", { fast: 12, slow: 48, allow_short: true }, minutes, costly, 7_777],
    ["ma_crossover", { fast: 1, slow: 2 }, daily, bot, 1_000],
    ["ma_crossover", { fast: 20, slow: 100 }, hours, costly, 4_096],
    ["ma_crossover", { fast: 5, slow: 6, allow_short: true }, hours, bot, 333],
    ["breakout", { lookback: 40, exit_lookback: 15 }, minutes, costly, 7_777],
    ["breakout", { lookback: 2, exit_lookback: 2 }, daily, bot, 1_000],
    ["breakout", { lookback: 20, exit_lookback: 1 }, hours, costly, 333],
  ] as const)("%s %j", (name, raw, bars, s, chunk) => {
    const { event, vector } = both(name, raw, bars, s, chunk);
    expect(event.metrics.trades).toBeGreaterThan(10);
    expect(vector.metrics).toEqual(event.metrics);
    expect(vector.events).toEqual(event.events);
  });

  it("on the bundled data set", async () => {
    const bars = await loadBars("csv:sample-btc-usd-1d");
    for (const [name, raw] of [
      ["ma_crossover", { fast: 10, slow: 30, allow_short: true }],
      ["breakout", { lookback: 20, exit_lookback: 10 }],
    ] as const) {
      const { event, vector } = both(name, raw, bars, bot, 64);
      expect(event.metrics.results!.trades.length).toBeGreaterThan(3);
      expect(vector.metrics).toEqual(event.metrics);
    }
  });

  it("past a million bars, where the moving averages' running sums are recomputed", () => {
    const bars = generateBars({ seed: 3, count: 1_000_500, intervalMs: 60_000 });
    const { event, vector } = both("ma_crossover", { fast: 30, slow: 90 }, bars, costly, 250_000);
    expect(vector.metrics).toEqual(event.metrics);
  });

  it("where the two averages are equal but for the last bits, bar after bar", () => {
    // Closes of 0.1, 0.2 and 0.3 in turn, each moved by about one unit in the last place: at
    // every third bar the fast (3) and slow (7) averages differ by rounding alone, so comparing
    // them any other way than the event-driven path does (a quotient each) flips some targets.
    const ties = allocateBars(20_000);
    for (let i = 0; i < ties.length; i++) {
      const nudge = 1e-16 * (((Math.imul(i, 2654435761) >>> 7) % 3) - 1);
      ties.time[i] = Date.UTC(2024, 0, 1) + i * 60_000;
      ties.close[i] = ties.open[i] = ties.high[i] = ties.low[i] = [0.1, 0.2, 0.3][i % 3]! + nudge;
      ties.volume[i] = 1_000;
    }
    const { event, vector } = both(
      "ma_crossover",
      { fast: 3, slow: 7, allow_short: true },
      ties,
      // Without costs the account lasts through every flip instead of dwindling to dust.
      { initialCash: 1e6, feeBps: 0, slippageBps: 0, positionSize: 1 },
      1_000,
    );
    expect(event.events.length).toBeGreaterThan(1_000);
    expect(vector.metrics).toEqual(event.metrics);
    expect(vector.events).toEqual(event.events);
  });

  it("with no trade, a position open at the end, and a single bar", () => {
    const bars = generateBars({ seed: 8, count: 500 });
    // A channel longer than the data: never a breakout, so never an order.
    const none = both("breakout", { lookback: 600, exit_lookback: 5 }, bars, costly, 100);
    expect(none.event.metrics.trades).toBe(0);
    expect(none.vector.metrics).toEqual(none.event.metrics);

    // A steady rise: long from the first crossing to the end, marked at the last close.
    const rising = allocateBars(200);
    for (let i = 0; i < 200; i++) {
      rising.time[i] = Date.UTC(2024, 0, 1) + i * 86_400_000;
      rising.open[i] = rising.low[i] = 100 + i;
      rising.close[i] = rising.high[i] = 100.5 + i;
      rising.volume[i] = 1_000;
    }
    const open = both("ma_crossover", { fast: 3, slow: 10 }, rising, bot, 64);
    expect(open.event.metrics.results!.trades.at(-1)!.closed).toBe(false);
    expect(open.vector.metrics).toEqual(open.event.metrics);

    const one = both("breakout", { lookback: 2, exit_lookback: 1 }, barsAt(bars, 0, 1), costly, 1);
    expect(one.event.metrics.bars).toBe(1);
    expect(one.vector.metrics).toEqual(one.event.metrics);
  });
});

describe("a family without a vectorised path", () => {
  it("is refused, naming the family and the way to run it", () => {
    const { family, params } = resolveStrategy("mean_reversion_bands", {});
    expect(() => vectorisedRun(family, params, costly)).toThrow(EngineInputError);
    expect(() => vectorisedRun(family, params, costly)).toThrow(
      "mean_reversion_bands has no vectorised path (its signal rescans a window every bar); run it event-driven",
    );
  });
});
