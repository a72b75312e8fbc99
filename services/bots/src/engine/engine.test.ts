import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  allocateBars,
  BacktestRun,
  EngineInputError,
  generateBars,
  loadBars,
  parseCsvBars,
  streamCsvBars,
  resolveStrategy,
  runBacktest,
  STRATEGY_FAMILIES,
  type Bars,
  type Strategy,
} from "./index.js";

const DAY = 86_400_000;
function barsOf(rows: Array<[number, number, number, number]>): Bars {
  const b = allocateBars(rows.length);
  rows.forEach(([o, h, l, c], i) => {
    b.time[i] = Date.UTC(2024, 0, 1) + i * DAY;
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

describe("event-driven engine, by hand", () => {
  it("fills at the next open, charges fees on the notional, marks at the close", () => {
    // t0 close: target 1 -> t1 open: buy 1000/100 = 10 units at 100, fee 1 -> cash -1.
    // t1 close 110: equity 1099; t2 close 121: 1209; t2 target 0 -> t3 open: sell 10 at 121,
    // fee 1.21 -> cash 1207.79; equity 1207.79.
    const m = runBacktest(tiny, scripted([1, 1, 0, 0]), {
      initialCash: 1000,
      feeBps: 10,
      slippageBps: 0,
      positionSize: 1,
    });
    expect(m.finalEquity).toBeCloseTo(1207.79, 10);
    expect(m.pnl).toBeCloseTo(207.79, 10);
    expect(m.totalReturn).toBeCloseTo(0.20779, 10);
    expect(m.fees).toBeCloseTo(2.21, 10);
    expect(m.trades).toBe(1);
    expect(m.winRate).toBe(1);
    expect(m.exposure).toBe(0.5);
    expect(m.maxDrawdown).toBeCloseTo((1209 - 1207.79) / 1209, 12);
    expect([...m.dailyReturns].map((r) => +r.toFixed(9))).toEqual([
      0,
      0.099,
      +(1209 / 1099 - 1).toFixed(9),
      +(1207.79 / 1209 - 1).toFixed(9),
    ]);
    // Sharpe of those four daily returns, annualised with sqrt(252).
    const d = [...m.dailyReturns];
    const mean = d.reduce((a, b) => a + b) / 4;
    const sd = Math.sqrt(d.reduce((a, b) => a + (b - mean) ** 2, 0) / 3);
    expect(m.sharpe).toBeCloseTo((mean / sd) * Math.sqrt(252), 12);
  });

  it("moves fills against the trader by the slippage", () => {
    // Buy 10 at 100.5 (fee 1.005), sell 10 at 120.395 (fee 1.20395): cash 1196.74105.
    const m = runBacktest(tiny, scripted([1, 1, 0, 0]), {
      initialCash: 1000,
      feeBps: 10,
      slippageBps: 50,
      positionSize: 1,
    });
    expect(m.finalEquity).toBeCloseTo(1196.74105, 9);
  });

  it("sizes by position_size and counts a losing round trip", () => {
    const m = runBacktest(tiny, scripted([0, 0, 1, 0]), {
      initialCash: 1000,
      feeBps: 0,
      slippageBps: 0,
      positionSize: 0.5,
    });
    // t3 open: buy 500/121 units; marked at close 100.
    expect(m.finalEquity).toBeCloseTo(500 + (500 / 121) * 100, 9);
    expect(m.winRate).toBe(0);
    expect(m.trades).toBe(1);
  });

  it("cannot look ahead: a strategy that trades on the bar it has just seen loses on a zigzag", () => {
    // Up, down, up, down...: momentum judged at a bar's close would win every bar if it were
    // filled at that same bar's open; filled at the next open, it is always on the wrong side.
    const rows: Array<[number, number, number, number]> = [];
    for (let i = 0; i < 200; i++)
      rows.push(i % 2 === 0 ? [100, 111, 99, 110] : [110, 111, 99, 100]);
    let prev = NaN;
    const momentum: Strategy = {
      onBar(b, i) {
        const close = b.close[i]!;
        const t = close > prev ? 1 : 0;
        prev = close;
        return t;
      },
    };
    const m = runBacktest(barsOf(rows), momentum, {
      initialCash: 1000,
      feeBps: 0,
      slippageBps: 0,
      positionSize: 1,
    });
    expect(m.pnl).toBeLessThan(0);
  });

  it("gives the same result in one piece or in chunks, and for the same seed", () => {
    const bars = generateBars({ seed: 11, count: 5_000, intervalMs: 3_600_000 });
    const { family, params } = resolveStrategy("ma_crossover", {
      fast: 5,
      slow: 20,
      allow_short: true,
    });
    const whole = runBacktest(bars, family.create(params), {
      initialCash: 1e5,
      feeBps: 5,
      slippageBps: 2,
      positionSize: 1,
    });
    const run = new BacktestRun(family.create(params), {
      initialCash: 1e5,
      feeBps: 5,
      slippageBps: 2,
      positionSize: 1,
    });
    for (let i = 0; i < 5_000; i += 777) {
      const end = Math.min(i + 777, 5_000);
      run.feed({
        length: end - i,
        time: bars.time.subarray(i, end),
        open: bars.open.subarray(i, end),
        high: bars.high.subarray(i, end),
        low: bars.low.subarray(i, end),
        close: bars.close.subarray(i, end),
        volume: bars.volume.subarray(i, end),
      });
    }
    expect(run.finish()).toEqual(whole);
    const again = runBacktest(
      generateBars({ seed: 11, count: 5_000, intervalMs: 3_600_000 }),
      family.create(params),
      { initialCash: 1e5, feeBps: 5, slippageBps: 2, positionSize: 1 },
    );
    expect(again.finalEquity).toBe(whole.finalEquity);
  });
});

describe("cross-check against whole-array signals over 100,000 bars", () => {
  const bars = generateBars({ seed: 2024, count: 100_000, intervalMs: 3_600_000 });
  const settings = { initialCash: 1e6, feeBps: 4, slippageBps: 3, positionSize: 0.8 };
  it.each([
    ["ma_crossover", { fast: 12, slow: 48, allow_short: true }],
    ["mean_reversion_bands", { window: 30, k: 1.5, allow_short: true }],
    ["breakout", { lookback: 40, exit_lookback: 15 }],
  ])("%s: the strategy answers the family's independent whole-array targets", (name, raw) => {
    const { family, params } = resolveStrategy(name, raw);
    const targets = family.targets(bars, params);
    const strategy = family.create(params);
    let mismatches = 0;
    for (let i = 0; i < bars.length; i++) if (strategy.onBar(bars, i) !== targets[i]) mismatches++;
    expect(mismatches).toBe(0);
    expect(runBacktest(bars, family.create(params), settings).trades).toBeGreaterThan(50);
  });
});

describe("market data", () => {
  it("parses vendor CSV: ISO with and without zone, epoch seconds and milliseconds", () => {
    const b = parseCsvBars(
      "timestamp,open,high,low,close,volume\n2024-01-01T00:00:00Z,1,2,0.5,1.5,10\n2024-01-02,1.5,2,1,1.8,5\n1704240000,1.8,2,1.7,1.9,1\n1704326400000,1.9,2,1.8,2,1\n",
    );
    expect(b.length).toBe(4);
    expect([...b.time]).toEqual([
      Date.UTC(2024, 0, 1),
      Date.UTC(2024, 0, 2),
      Date.UTC(2024, 0, 3),
      Date.UTC(2024, 0, 4),
    ]);
  });

  it.each([
    ["", "empty_data", undefined],
    ["timestamp,open,high,low,close,volume\n", "empty_data", undefined],
    ["time,o,h,l,c,v\n2024-01-01,1,2,0.5,1.5,1", "malformed_csv", 1],
    [
      "timestamp,open,high,low,close,volume\n2024-01-01,1,2,0.5,1.5,1\n2024-01-02,1,2,0.5,abc,1",
      "malformed_csv",
      3,
    ],
    [
      "timestamp,open,high,low,close,volume\n2024-01-01,1,2,0.5,1.5,1\n2024-01-01,1,2,0.5,1.5,1",
      "malformed_csv",
      3,
    ],
    ["timestamp,open,high,low,close,volume\n2024-01-01,1,1.2,0.5,1.5,1", "malformed_csv", 2],
    ["timestamp,open,high,low,close,volume\nyesterday,1,2,0.5,1.5,1", "malformed_csv", 2],
  ])("refuses %j with %s at line %s", (text, code, line) => {
    try {
      parseCsvBars(text);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(EngineInputError);
      expect((err as EngineInputError).code).toBe(code);
      expect((err as EngineInputError).line).toBe(line);
      if (line) expect((err as Error).message).toMatch(new RegExp(`^line ${line}: `));
    }
  });

  it("streams a CSV file in chunks, and names the bad line of a file even past the first chunk", async () => {
    const dir = await mkdtemp(join(tmpdir(), "bars-"));
    try {
      const rows = Array.from(
        { length: 10 },
        (_, i) => `${Date.UTC(2024, 0, 1 + i) / 1000},10,12,9,11,${i}`,
      );
      const text = ["timestamp,open,high,low,close,volume", ...rows, "", ""].join("\r\n");
      const good = join(dir, "good.csv");
      await writeFile(good, text);
      const chunks: Bars[] = [];
      for await (const c of streamCsvBars(good, () => true, 3)) chunks.push(c);
      expect(chunks.map((c) => c.length)).toEqual([3, 3, 3, 1]);
      expect(chunks.flatMap((c) => [...c.volume])).toEqual([...parseCsvBars(text).volume]);
      const ranged: number[] = [];
      for await (const c of streamCsvBars(good, (t) => t >= Date.UTC(2024, 0, 4), 4))
        ranged.push(...c.time);
      expect(ranged).toEqual(Array.from({ length: 7 }, (_, i) => Date.UTC(2024, 0, 4 + i)));

      const bad = join(dir, "bad.csv");
      await writeFile(bad, `${text.trimEnd()}\n\n${rows[0]}\n`);
      const seen: number[] = [];
      const err = await (async () => {
        for await (const c of streamCsvBars(bad, () => true, 3)) seen.push(c.length);
      })().catch((e: unknown) => e);
      // The chunks before the bad line were handed out before it was read: nothing waits for the whole file.
      expect(seen).toEqual([3, 3, 3]);
      expect(err).toBeInstanceOf(EngineInputError);
      expect((err as EngineInputError).line).toBe(12);
      expect((err as Error).message).toBe("line 12: expected 6 columns, got 1");
    } finally {
      await rm(dir, { recursive: true });
    }
  });

  it("loads a bundled dataset or refuses the source and the range with the field to fix", async () => {
    expect((await loadBars("csv:sample-btc-usd-1d")).length).toBe(1000);
    const year = await loadBars(
      "csv:sample-btc-usd-1d",
      Date.UTC(2022, 5, 1),
      Date.UTC(2023, 5, 1),
    );
    expect([year.length, year.time[0]]).toEqual([365, Date.UTC(2022, 5, 1)]);
    const refusal = (p: Promise<unknown>) =>
      p.then(
        () => expect.unreachable(),
        (e: EngineInputError) => [e.code, e.field],
      );
    expect(await refusal(loadBars("csv:nope"))).toEqual(["invalid_parameter", "data_source"]);
    expect(await refusal(loadBars("csv:sample-btc-usd-1d", 2, 1))).toEqual([
      "invalid_range",
      "start",
    ]);
    expect(
      await refusal(loadBars("csv:sample-btc-usd-1d", Date.UTC(2030, 0, 1), Date.UTC(2031, 0, 1))),
    ).toEqual(["empty_data", "start"]);
  });

  it("generates the same bars for the same seed, valid OHLC", () => {
    const a = generateBars({ seed: 3, count: 2_000 });
    const b = generateBars({ seed: 3, count: 2_000 });
    expect([...a.close]).toEqual([...b.close]);
    for (let i = 0; i < a.length; i++) {
      expect(a.high[i]).toBeGreaterThanOrEqual(Math.max(a.open[i]!, a.close[i]!));
      expect(a.low[i]).toBeLessThanOrEqual(Math.min(a.open[i]!, a.close[i]!));
    }
  });
});

describe("strategy parameters", () => {
  it("validates against each family's declared parameters", () => {
    expect(() => resolveStrategy("ma_crossover", { fast: 30, slow: 10 })).toThrow(
      "strategy.parameters.slow: slow (10) must be greater than fast (30)",
    );
    expect(() => resolveStrategy("ma_crossover", { fast: 3, slow: 10, colour: 1 })).toThrow(
      /no parameter "colour"; its parameters: fast, slow, allow_short/,
    );
    expect(() => resolveStrategy("ma_crossover", { fast: 2.5 })).toThrow(
      /fast must be a whole number/,
    );
    expect(() => resolveStrategy("astrology", {})).toThrow(
      /built-in families: ma_crossover, mean_reversion_bands, breakout/,
    );
    expect(resolveStrategy("breakout", {}).params).toEqual({ lookback: 20, exit_lookback: 10 });
    expect(Object.keys(STRATEGY_FAMILIES)).toHaveLength(3);
  });
});
