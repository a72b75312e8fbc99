import { describe, expect, it } from "vitest";
import {
  allocateBars,
  generateBars,
  resolveStrategy,
  runBacktest,
  SERIES_BUCKETS,
  TradeBook,
  type Bars,
  type Strategy,
} from "./index.js";

const DAY = 86_400_000;
const T0 = Date.UTC(2024, 0, 1);
function barsOf(rows: Array<[number, number, number, number]>): Bars {
  const b = allocateBars(rows.length);
  rows.forEach(([o, h, l, c], i) => {
    b.time[i] = T0 + i * DAY;
    b.open[i] = o;
    b.high[i] = h;
    b.low[i] = l;
    b.close[i] = c;
    b.volume[i] = 1;
  });
  return b;
}
const scripted = (targets: number[]): Strategy => {
  let i = 0;
  return { onBar: () => targets[i++] ?? 0 };
};
const tiny = barsOf([
  [100, 101, 99, 100],
  [100, 111, 99, 110],
  [110, 122, 109, 121],
  [121, 122, 99, 100],
]);
const settings = { initialCash: 1000, feeBps: 10, slippageBps: 0, positionSize: 1 };

describe("a backtest's results", () => {
  it("lists the round trip with its entry, exit, size, fees and net PnL", () => {
    const m = runBacktest(tiny, scripted([1, 1, 0, 0]), settings);
    expect(m.results!.trades).toEqual([
      {
        side: "long",
        entryTime: T0 + DAY,
        entryPrice: 100,
        exitTime: T0 + 3 * DAY,
        exitPrice: 121,
        units: 10,
        pnl: expect.closeTo(207.79, 9),
        fees: expect.closeTo(2.21, 9),
        closed: true,
      },
    ]);
    // The trades' PnL is the run's.
    expect(m.results!.trades[0]!.pnl).toBeCloseTo(m.pnl, 9);
  });

  it("marks a trade still open at the last close", () => {
    const m = runBacktest(tiny, scripted([0, 0, 1, 1]), { ...settings, feeBps: 0 });
    const [t] = m.results!.trades;
    expect(t).toMatchObject({ closed: false, entryTime: T0 + 3 * DAY, exitTime: T0 + 3 * DAY });
    expect(t!.exitPrice).toBe(100);
    expect(t!.pnl).toBeCloseTo(m.pnl, 9);
  });

  it("keeps every bar of a short run in the curve, with its drawdown and days", () => {
    const m = runBacktest(tiny, scripted([1, 1, 0, 0]), settings);
    const { points, downsampled } = m.results!.curve;
    expect(downsampled).toBe(false);
    expect(points.map((p) => p.time)).toEqual([0, 1, 2, 3].map((i) => T0 + i * DAY));
    expect(points.at(-1)!.equity).toBeCloseTo(m.finalEquity, 9);
    expect(points.at(-1)!.drawdown).toBeCloseTo(m.maxDrawdown, 12);
    expect(m.results!.dailyDates).toEqual([0, 1, 2, 3].map((i) => T0 + i * DAY));
  });

  it("bounds a long curve, keeping the last bar and the deepest drawdown", () => {
    const bars = generateBars({ seed: 7, count: 200_000, intervalMs: 60_000 });
    const { family, params } = resolveStrategy("ma_crossover", { fast: 10, slow: 40 });
    const m = runBacktest(bars, family.create(params), settings);
    const { points, downsampled } = m.results!.curve;
    expect(downsampled).toBe(true);
    expect(points.length).toBeLessThanOrEqual(2 * SERIES_BUCKETS);
    expect(points.length).toBeGreaterThan(SERIES_BUCKETS / 2);
    expect(points.at(-1)!.time).toBe(bars.time[bars.length - 1]);
    expect(points.at(-1)!.equity).toBeCloseTo(m.finalEquity, 6);
    expect(Math.max(...points.map((p) => p.drawdown))).toBeCloseTo(m.maxDrawdown, 12);
    for (let i = 1; i < points.length; i++)
      expect(points[i]!.time).toBeGreaterThan(points[i - 1]!.time);
    // The trades add up to the run's result.
    const sum = m.results!.trades.reduce((a, t) => a + t.pnl, 0);
    expect(sum).toBeCloseTo(m.pnl, 4);
  });

  it("keeps at most its limit of trades, counting the rest", () => {
    const book = new TradeBook(2);
    for (let i = 0; i < 5; i++) {
      book.fill(2 * i, 1, 100, 0);
      book.fill(2 * i + 1, -1, 101, 0);
    }
    expect(book.trades).toHaveLength(2);
    expect(book.dropped).toBe(3);
  });

  it("splits a fill that crosses zero into a closing and an opening trade", () => {
    const book = new TradeBook();
    book.fill(1, 10, 100, 1);
    book.fill(2, -20, 110, 2);
    book.fill(3, 10, 105, 1);
    expect(book.trades).toMatchObject([
      { side: "long", units: 10, entryPrice: 100, exitPrice: 110, pnl: 100 - 1 - 1 },
      { side: "short", units: 10, entryPrice: 110, exitPrice: 105, pnl: 50 - 1 - 1 },
    ]);
  });
});
