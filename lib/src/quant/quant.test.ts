import { describe, expect, it } from "vitest";
import {
  deflatedSharpeFromTrials,
  deflatedSharpeRatio,
  expectedMaxSharpe,
  moments,
  normalCdf,
  normalInv,
  probabilisticSharpeRatio,
  probabilityOfBacktestOverfitting,
  seededRandom,
} from "./index.js";

describe("normal distribution", () => {
  it("matches tabulated values and inverts", () => {
    expect(normalCdf(0)).toBe(0.5);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 12);
    expect(normalCdf(-3)).toBeCloseTo(0.0013498980316301, 13);
    for (const p of [1e-9, 0.001, 0.2, 0.5, 0.99, 0.999999])
      expect(normalCdf(normalInv(p))).toBeCloseTo(p, 12);
    expect(() => normalInv(1)).toThrow(RangeError);
  });
});

describe("Deflated Sharpe Ratio (Bailey and López de Prado, 2014)", () => {
  it("reproduces the paper's worked example: DSR 0.9004", () => {
    // N = 100 trials, V[SR] = 0.5 (annualised), SR = 2.5 annualised, T = 1250 daily returns,
    // skewness -3, kurtosis 10; the paper de-annualises with sqrt(250).
    const emax = expectedMaxSharpe(100, 0.5);
    expect(emax).toBeCloseTo(1.7894, 3);
    const dsr = deflatedSharpeRatio({
      annualisedSharpe: 2.5,
      trials: 100,
      varianceOfAnnualisedTrialSharpes: 0.5,
      observations: 1250,
      skewness: -3,
      kurtosis: 10,
      periodsPerYear: 250,
    });
    expect(dsr.toFixed(4)).toBe("0.9004");
  });

  it("deflates more as the number of trials grows", () => {
    const at = (trials: number) =>
      deflatedSharpeRatio({
        annualisedSharpe: 2.5,
        trials,
        varianceOfAnnualisedTrialSharpes: 0.5,
        observations: 1250,
        skewness: -3,
        kurtosis: 10,
        periodsPerYear: 250,
      });
    expect(at(10)).toBeGreaterThan(at(100));
    expect(at(100)).toBeGreaterThan(at(1000));
  });

  it("PSR reduces to the textbook z-score for normal returns", () => {
    // SR 0.1, benchmark 0, T 101, skew 0, kurtosis 3: z = 0.1*10/sqrt(1 + 0.5*0.01) = 0.99751, Phi(z) = 0.84074
    const psr = probabilisticSharpeRatio({
      sharpe: 0.1,
      benchmark: 0,
      observations: 101,
      skewness: 0,
      kurtosis: 3,
    });
    expect(psr).toBeCloseTo(normalCdf(1 / Math.sqrt(1.005)), 14);
    expect(psr).toBeCloseTo(0.84074, 4);
  });

  it("computes N and the trials' variance from the ledger's return series", () => {
    const rng = seededRandom(7);
    const trials = Array.from({ length: 20 }, (_, k) =>
      Float64Array.from({ length: 500 }, () => rng.normal(k === 0 ? 0.001 : 0, 0.01)),
    );
    const r = deflatedSharpeFromTrials(trials[0]!, trials);
    expect(r.trials).toBe(20);
    expect(r.dsr).toBeGreaterThan(0);
    expect(r.dsr).toBeLessThan(1);
  });

  it("refuses input it cannot use, saying why", () => {
    expect(() => moments([1, 1, 1, 1])).toThrow(/zero variance/);
    expect(() => moments([0.1, NaN, 0.2])).toThrow(/not a finite number/);
    expect(() => expectedMaxSharpe(1, 0.5)).toThrow(/at least 2/);
  });
});

describe("Probability of Backtest Overfitting (CSCV)", () => {
  const noise = (seed: number, n: number, t: number, drift: (j: number) => number = () => 0) => {
    const rng = seededRandom(seed);
    return Array.from({ length: n }, (_, j) =>
      Float64Array.from({ length: t }, () => rng.normal(drift(j), 0.01)),
    );
  };

  it("enumerates C(S, S/2) splits", () => {
    expect(probabilityOfBacktestOverfitting(noise(1, 5, 160), 8).splits).toBe(70);
    expect(probabilityOfBacktestOverfitting(noise(1, 5, 320), 16).splits).toBe(12870);
  });

  it("is near 0 when one trial truly dominates", () => {
    const r = probabilityOfBacktestOverfitting(
      noise(2, 10, 1600, (j) => (j === 3 ? 0.004 : 0)),
      16,
    );
    expect(r.pbo).toBeLessThan(0.01);
  });

  it("is near one half for pure noise", () => {
    const r = probabilityOfBacktestOverfitting(noise(3, 50, 2000), 16);
    expect(r.pbo).toBeGreaterThan(0.3);
    expect(r.pbo).toBeLessThan(0.7);
  });

  it("exceeds one half when in-sample winners are out-of-sample losers by construction", () => {
    // Two trials that alternate: whichever wins one half loses the other, by construction.
    const t = 160;
    const a = new Float64Array(t);
    const b = new Float64Array(t);
    const rng = seededRandom(4);
    for (let i = 0; i < t; i++) {
      const block = Math.floor(i / 20);
      const e = rng.normal(0, 0.001);
      a[i] = (block % 2 === 0 ? 0.01 : -0.01) + e;
      b[i] = -a[i]!;
    }
    const r = probabilityOfBacktestOverfitting([a, b], 8);
    expect(r.pbo).toBeGreaterThan(0.5);
  });

  it("gives what CSCV computed straight from the rows gives, split by split", () => {
    // The paper's procedure with nothing shared between splits: each split's in-sample and
    // out-of-sample rows gathered and their Sharpe ratios computed from the returns themselves.
    const straight = (columns: Float64Array[], blocks: number) => {
      const size = Math.floor(columns[0]!.length / blocks);
      const sharpe = (rows: number[]) => {
        const mean = rows.reduce((a, v) => a + v, 0) / rows.length;
        const variance = rows.reduce((a, v) => a + (v - mean) ** 2, 0) / (rows.length - 1);
        return variance > 0 ? mean / Math.sqrt(variance) : Math.sign(mean) * Infinity || 0;
      };
      const logits: number[] = [];
      const pick = (chosen: number[], from: number): void => {
        if (chosen.length === blocks / 2) {
          const inSample = (b: number) => chosen.includes(b);
          const rows = (col: Float64Array, want: boolean) =>
            [...col.subarray(0, size * blocks)].filter(
              (_, r) => inSample(Math.floor(r / size)) === want,
            );
          const is = columns.map((c) => sharpe(rows(c, true)));
          const oos = columns.map((c) => sharpe(rows(c, false)));
          const best = is.indexOf(Math.max(...is));
          const below = oos.filter((v, j) => j !== best && v < oos[best]!).length;
          const ties = oos.filter((v, j) => j !== best && v === oos[best]!).length;
          const omega = (below + 1 + ties / 2) / (columns.length + 1);
          logits.push(Math.log(omega / (1 - omega)));
          return;
        }
        for (let b = from; b < blocks; b++) pick([...chosen, b], b + 1);
      };
      pick([], 0);
      return logits;
    };
    for (const [seed, n, t, blocks] of [
      [11, 12, 400, 8],
      [12, 30, 600, 10],
      [13, 8, 240, 6],
    ] as const) {
      const columns = noise(seed, n, t, (j) => (j === 1 ? 0.0008 : 0));
      columns[4] = columns[2]!; // a duplicate trial: ties must be counted the same way
      columns[5] = new Float64Array(t); // a flat trial: no variance
      const expected = straight(columns, blocks);
      const got = probabilityOfBacktestOverfitting(columns, blocks);
      expect(got.splits).toBe(expected.length);
      expect([...got.logits]).toEqual(expected.map((v) => expect.closeTo(v, 12)));
      expect(got.pbo).toBe(expected.filter((l) => l <= 0).length / expected.length);
    }
  });

  it("refuses an odd S, too little data, or a single trial", () => {
    expect(() => probabilityOfBacktestOverfitting(noise(5, 3, 100), 7)).toThrow(/even/);
    expect(() => probabilityOfBacktestOverfitting(noise(5, 3, 10), 16)).toThrow(/cannot be cut/);
    expect(() => probabilityOfBacktestOverfitting(noise(5, 1, 100), 4)).toThrow(
      /at least 2 trials/,
    );
  });
});
