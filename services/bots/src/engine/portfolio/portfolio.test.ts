import { describe, expect, it } from "vitest";
import { allocateBars, barsAt, type Bars } from "../bars.js";
import { BacktestRun } from "../event-engine.js";
import { riskLimitsFrom } from "../../execution/risk-controls/limits.js";
import { generateBars } from "../synthetic-source.js";
import { resolveStrategy } from "../strategies/registry.js";
import type { Strategy } from "../strategies/strategy.js";
import { alignBars } from "./aligned.js";
import { PortfolioRun, SHORT_REFUSED } from "./portfolio-run.js";
import { loadPortfolioBars, portfolioParts } from "./portfolio-source.js";

const settings = { initialCash: 100_000, feeBps: 10, slippageBps: 5, positionSize: 1 };
const DAY = 86_400_000;

function synthetic(seed: number, count = 600): Bars {
  return generateBars({ seed, count, startMs: Date.UTC(2020, 0, 1), intervalMs: DAY });
}

function ma(allowShort = false): () => Strategy {
  const { family, params } = resolveStrategy("ma_crossover", {
    fast: 5,
    slow: 20,
    allow_short: allowShort,
  });
  return () => family.create(params);
}

/** Always asks the same target: a portfolio's plumbing without a signal's noise. */
const constant = (w: number): Strategy => ({ onBar: () => w });

describe("a universe traded as a portfolio", () => {
  it("one symbol gives the one-symbol engine's run", () => {
    const bars = synthetic(7);
    const one = new BacktestRun(ma()(), settings);
    one.feed(bars);
    const single = one.finish();
    const run = new PortfolioRun(settings, ["A"]);
    const aligned = alignBars(new Map([["A", bars]]));
    run.runStrategies(aligned, [ma()()]);
    const p = run.books.finish(aligned.gaps);
    expect(p.trades).toBe(single.trades);
    expect(p.trades).toBeGreaterThan(3);
    expect(p.finalEquity).toBeCloseTo(single.finalEquity, 6);
    expect(p.maxDrawdown).toBeCloseTo(single.maxDrawdown, 9);
    expect(p.exposure).toBeCloseTo(single.exposure, 12);
    expect(p.fees).toBeCloseTo(single.fees, 6);
  });

  it("keeps one cash balance: the equity is the start plus every symbol's P&L", () => {
    const symbols = ["A", "B", "C"];
    const aligned = alignBars(new Map(symbols.map((s, i) => [s, synthetic(11 + i)])));
    const run = new PortfolioRun(settings, symbols);
    run.runStrategies(aligned, symbols.map(ma()));
    const p = run.books.finish(aligned.gaps);
    const sum = p.portfolio.symbols.reduce((n, s) => n + s.pnl, 0);
    expect(p.finalEquity).toBeCloseTo(settings.initialCash + sum, 6);
    expect(p.portfolio.symbols.map((s) => s.symbol)).toEqual(symbols);
    for (const s of p.portfolio.symbols) expect(s.trades).toBeGreaterThan(0);
    expect(p.trades).toBe(p.portfolio.symbols.reduce((n, s) => n + s.trades, 0));
    // Each symbol takes a third of the equity at most: never more than the cash there is.
    expect(p.portfolio.grossExposure).toBeLessThanOrEqual(1.01);
    expect(p.portfolio.turnover).toBeGreaterThan(0);
    expect(
      new Set(p.results!.trades.map((t) => (t as unknown as { symbol: string }).symbol)),
    ).toEqual(new Set(symbols));
  });

  it("reports a symbol's gaps and neither decides nor trades it there", () => {
    const a = synthetic(3, 10);
    const full = synthetic(4, 10);
    // B lacks its bars 4 and 5, and starts a bar late.
    const keep = [1, 2, 3, 6, 7, 8, 9];
    const b = allocateBars(keep.length);
    keep.forEach((k, i) => {
      for (const c of ["time", "open", "high", "low", "close", "volume"] as const)
        b[c][i] = full[c][k]!;
    });
    const aligned = alignBars(
      new Map([
        ["A", a],
        ["B", b],
      ]),
    );
    expect(aligned.gaps[1]).toEqual({
      symbol: "B",
      bars: 7,
      outside: 1,
      missing: 2,
      firstMissing: a.time[4],
    });
    expect(aligned.gaps[0]).toMatchObject({ symbol: "A", missing: 0, outside: 0 });
    expect(Number.isNaN(aligned.bars[1]!.close[4]!)).toBe(true);
    const seen: number[] = [];
    const spy: Strategy = { onBar: (b, t) => (seen.push(b.close[t]!), 1) };
    const run = new PortfolioRun(settings, ["A", "B"]);
    run.runStrategies(aligned, [constant(1), spy]);
    expect(seen).toEqual(keep.map((k) => full.close[k]!));
  });

  it("refuses a short unless the engine allows it, and charges its borrow when it does", () => {
    const bars = new Map([
      ["A", synthetic(21)],
      ["B", synthetic(22)],
    ]);
    const aligned = alignBars(bars);
    const refused = new Map<string, number>();
    const longOnly = new PortfolioRun(settings, ["A", "B"], {
      risk: { limits: riskLimitsFrom(), refused },
    });
    longOnly.runStrategies(aligned, [constant(-1), constant(1)]);
    const l = longOnly.books.finish(aligned.gaps);
    expect(refused.get(SHORT_REFUSED)).toBeGreaterThan(0);
    expect(l.portfolio.symbols[0]!.units).toBe(0);
    expect(l.portfolio.symbols[1]!.units).toBeGreaterThan(0);

    const short = new PortfolioRun({ ...settings, allowShort: true, borrowBps: 500 }, ["A", "B"]);
    short.runStrategies(aligned, [constant(-1), constant(1)]);
    const s = short.books.finish(aligned.gaps);
    const a = s.portfolio.symbols[0]!;
    expect(a.units).toBeLessThan(0);
    // About 5 % a year on about half the equity, over 600 days.
    expect(a.borrowCost).toBeGreaterThan(0.05 * 0.4 * settings.initialCash * (590 / 365));
    expect(a.borrowCost).toBeLessThan(0.05 * 0.7 * settings.initialCash * (600 / 365));
    expect(s.portfolio.borrowCost).toBe(a.borrowCost);
  });

  it("charges each symbol its own fee", () => {
    const aligned = alignBars(
      new Map([
        ["A", synthetic(31)],
        ["B", synthetic(32)],
      ]),
    );
    const run = new PortfolioRun({ ...settings, feeBps: 0, symbolCosts: { B: { feeBps: 25 } } }, [
      "A",
      "B",
    ]);
    run.runStrategies(aligned, [ma()(), ma()()]);
    const [a, b] = run.books.finish(aligned.gaps).portfolio.symbols;
    expect(a!.fees).toBe(0);
    expect(b!.fees).toBeGreaterThan(0);
  });

  it("holds the capital threshold across the portfolio, not symbol by symbol", () => {
    const aligned = alignBars(
      new Map([
        ["A", synthetic(41, 50)],
        ["B", synthetic(42, 50)],
      ]),
    );
    const refused = new Map<string, number>();
    // Each symbol asks half the equity; together they are over 60 %.
    const run = new PortfolioRun(settings, ["A", "B"], {
      risk: { limits: riskLimitsFrom({ capitalLimit: 60_000 }), refused },
    });
    run.runStrategies(aligned, [constant(1), constant(1)]);
    const p = run.books.finish(aligned.gaps);
    expect(refused.get("capital_threshold")).toBe(1);
    expect(p.portfolio.symbols[0]!.units).toBeGreaterThan(0);
    expect(p.portfolio.symbols[1]!.units).toBe(0);
  });

  it("runs a slice at a time as it runs whole", () => {
    const symbols = ["A", "B"];
    const aligned = alignBars(new Map(symbols.map((s, i) => [s, synthetic(51 + i)])));
    const whole = new PortfolioRun(settings, symbols);
    whole.runStrategies(aligned, symbols.map(ma()));
    const sliced = new PortfolioRun(settings, symbols);
    const strategies = symbols.map(ma());
    for (let from = 0; from < aligned.time.length; from += 64)
      sliced.runStrategies(aligned, strategies, from, Math.min(from + 64, aligned.time.length));
    expect(sliced.books.finish(aligned.gaps).finalEquity).toBe(
      whole.books.finish(aligned.gaps).finalEquity,
    );
  });
});

describe("a portfolio's data", () => {
  const datasets = {
    describe: async (name: string) =>
      ({ aapl: { symbol: "AAPL", timeframe: "1d" }, msft: { symbol: "MSFT", timeframe: "1d" } })[
        name
      ],
    chunks: async function* () {
      yield barsAt(synthetic(1, 2), 0, 2);
    },
  };

  it("names every symbol of the universe no data set holds", async () => {
    await expect(
      portfolioParts("csv:aapl+csv:msft", ["AAPL", "MSFT", "GOOG", "AMZN"], { datasets }),
    ).rejects.toMatchObject({
      code: "universe_not_covered",
      field: "data_source",
      message: expect.stringMatching(/no bars of GOOG, AMZN in csv:aapl\+csv:msft/),
    });
    await expect(portfolioParts("csv:aapl", ["AAPL", "MSFT"], { datasets })).rejects.toMatchObject({
      code: "universe_not_covered",
      message: expect.stringContaining("no bars of MSFT"),
    });
  });

  it("maps each symbol to its data set, in universe order", async () => {
    expect(await portfolioParts("csv:aapl+csv:msft", ["MSFT", "AAPL"], { datasets })).toEqual([
      { symbol: "MSFT", source: "csv:msft" },
      { symbol: "AAPL", source: "csv:aapl" },
    ]);
    expect(await portfolioParts("synthetic:5", ["X", "Y"])).toEqual([
      { symbol: "X", source: "synthetic:5" },
      { symbol: "Y", source: "synthetic:6" },
    ]);
  });
});

describe("a portfolio over one data set with a symbol column", () => {
  const MINUTE = 60_000;
  /** 180 one-minute bars of a symbol; GOOG has none in the second hour. */
  const minutes = (symbol: string): Bars => {
    const b = allocateBars(180);
    let n = 0;
    for (let m = 0; m < 180; m++) {
      if (symbol === "GOOG" && m >= 60 && m < 120) continue;
      const p = 100 + m + (symbol === "MSFT" ? 50 : 0);
      b.time[n] = Date.UTC(2024, 0, 1) + m * MINUTE;
      b.open[n] = p;
      b.high[n] = p + 1;
      b.low[n] = p - 1;
      b.close[n] = p + 0.5;
      b.volume[n] = 1;
      n++;
    }
    return { ...b, length: n };
  };
  const read: string[] = [];
  const datasets = {
    describe: async (name: string) =>
      ({
        majors: { symbol: "AAPL", timeframe: "1m", symbols: ["AAPL", "GOOG", "MSFT", "TSLA"] },
        aapl: { symbol: "AAPL", timeframe: "1m" },
      })[name],
    chunks: async function* (name: string, symbol?: string) {
      read.push(`${name}:${symbol}`);
      yield barsAt(minutes(symbol!), 0, minutes(symbol!).length);
    },
  };

  it("reads each universe symbol of it apart, aligned and resampled like data sets of one symbol", async () => {
    const parts = await portfolioParts("csv:majors", ["MSFT", "GOOG"], { datasets });
    expect(parts).toEqual([
      { symbol: "MSFT", source: "csv:majors" },
      { symbol: "GOOG", source: "csv:majors" },
    ]);
    for (const part of parts) part.resampleMs = 60 * MINUTE;
    read.length = 0;
    const aligned = await loadPortfolioBars(parts, undefined, undefined, { datasets });
    // TSLA, which the universe does not name, is never read.
    expect(read).toEqual(["majors:MSFT", "majors:GOOG"]);
    expect(aligned.time.length).toBe(3);
    expect([...aligned.bars[0]!.close]).toEqual([209.5, 269.5, 329.5]);
    // GOOG's empty hour makes no bar, and is reported, not filled in.
    expect(Number.isNaN(aligned.bars[1]!.close[1])).toBe(true);
    expect(aligned.gaps[1]).toMatchObject({ symbol: "GOOG", bars: 2, missing: 1 });
  });

  it("names the universe symbols it lacks, and refuses a symbol two data sets hold", async () => {
    await expect(
      portfolioParts("csv:majors", ["AAPL", "AMZN"], { datasets }),
    ).rejects.toMatchObject({
      code: "universe_not_covered",
      message: expect.stringContaining("no bars of AMZN in csv:majors"),
    });
    await expect(
      portfolioParts("csv:majors+csv:aapl", ["AAPL", "MSFT"], { datasets }),
    ).rejects.toMatchObject({
      code: "invalid_parameter",
      message: expect.stringContaining("csv:majors and csv:aapl both hold AAPL"),
    });
  });
});
