// bench/sweep: a 1,000-combination MA-crossover grid (fast 2..26 x slow 30..225 by 5) over one
// million synthetic one-minute bars, one core: the engine a sweep's workers run (the vectorised
// path, fees, slippage, fills at the next open, books, curve and trades), one run per combination
// over the same bars, against the numpy reference doing the same grid by broadcasting
// (ma_grid_numpy.py, what a vectorbt user writes: every average once, the slow axis broadcast
// against each fast average, close-to-close returns held from the next bar, a fee per change).
// The two fill models differ (ours at the next open with slippage), so the check that both ran
// the same grid is the rank correlation of their total returns, not equality.
// Usage: taskset -c 1 npx tsx bench/src/sweep/ma-grid.ts [--runs 3] [--out FILE]
// (needs python3 with numpy: Debian's python3-numpy)
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { allocateBars, resolveStrategy, vectorisedRun, type Bars } from "@svc/bots/engine";
import { machine } from "../machine.js";
import { CHUNK, eachChunk, SETTINGS } from "../backtest/synthetic-chunks.js";

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "3" },
    out: { type: "string", default: "bench/results/sweep-ma-grid.json" },
  },
});
const RUNS = Number(args.runs);
const FAST = Array.from({ length: 25 }, (_, i) => 2 + i);
const SLOW = Array.from({ length: 40 }, (_, i) => 30 + 5 * i);
const COMBINATIONS = FAST.length * SLOW.length;

const bars: Bars = allocateBars(CHUNK);
eachChunk(CHUNK, (c) => {
  for (const k of ["time", "open", "high", "low", "close", "volume"] as const) bars[k].set(c[k]);
});

interface Grid {
  totalReturn: number[];
  trades: number[];
  maxDrawdown: number[];
}

/** Every combination as a sweep runs it: a fresh engine per combination, fed the bars, finished. */
function engineGrid(): Grid {
  const out: Grid = { totalReturn: [], trades: [], maxDrawdown: [] };
  for (const fast of FAST)
    for (const slow of SLOW) {
      const { family, params } = resolveStrategy("ma_crossover", { fast, slow });
      const run = vectorisedRun(family, params, SETTINGS);
      run.feed(bars);
      const m = run.finish();
      out.totalReturn.push(m.totalReturn);
      out.trades.push(m.trades);
      out.maxDrawdown.push(m.maxDrawdown);
    }
  return out;
}

function timed<T>(fn: () => T): { ms: number; value: T } {
  const t0 = performance.now();
  const value = fn();
  return { ms: performance.now() - t0, value };
}

function numpyGrid(runs: number): { runs_ms: number[]; numpy: string; grid: Grid } {
  const file = join(mkdtempSync(join(tmpdir(), "svc-sweep-")), "close.f64");
  writeFileSync(file, new Uint8Array(bars.close.buffer, 0, CHUNK * 8));
  const script = fileURLToPath(new URL("./ma_grid_numpy.py", import.meta.url));
  const out = JSON.parse(
    execFileSync(
      "python3",
      [script, file, FAST.join(","), SLOW.join(","), String(SETTINGS.feeBps), String(runs)],
      { encoding: "utf8", maxBuffer: 64 << 20 },
    ),
  ) as {
    numpy: string;
    runs_ms: number[];
    total_return: number[];
    trades: number[];
    max_drawdown: number[];
  };
  return {
    runs_ms: out.runs_ms,
    numpy: out.numpy,
    grid: { totalReturn: out.total_return, trades: out.trades, maxDrawdown: out.max_drawdown },
  };
}

/** Spearman's rank correlation (no ties expected among total returns). */
function rankCorrelation(a: number[], b: number[]): number {
  const ranks = (xs: number[]) => {
    const order = xs.map((x, i) => [x, i] as const).sort((p, q) => p[0] - q[0]);
    const r = new Array<number>(xs.length);
    order.forEach(([, i], k) => (r[i] = k));
    return r;
  };
  const ra = ranks(a);
  const rb = ranks(b);
  const n = a.length;
  const d2 = ra.reduce((s, r, i) => s + (r - rb[i]!) ** 2, 0);
  return 1 - (6 * d2) / (n * (n * n - 1));
}

const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x);
  return { min_ms: r(s[0]!), median_ms: r(s[Math.floor(s.length / 2)]!), max_ms: r(s.at(-1)!) };
};

const load = [loadavg()[0]];
// Alternated rounds: ours, then numpy, RUNS times, so that load drifts hit both alike.
const ours: number[] = [];
const theirs: number[] = [];
let oursGrid: Grid | undefined;
let numpyVersion = "";
let theirGrid: Grid | undefined;
for (let i = 0; i < RUNS; i++) {
  const a = timed(engineGrid);
  ours.push(a.ms);
  oursGrid = a.value;
  const b = numpyGrid(1);
  theirs.push(...b.runs_ms);
  numpyVersion = b.numpy;
  theirGrid = b.grid;
  load.push(loadavg()[0]);
  console.error(
    `round ${i + 1}: engine ${Math.round(a.ms)} ms, numpy ${Math.round(b.runs_ms[0]!)} ms`,
  );
}
const o = stats(ours);
const n = stats(theirs);
const result = {
  benchmark: "1,000-combination MA-crossover grid over 1M one-minute bars, one core",
  machine: machine(),
  load_average_1m: load.map((x) => Math.round(x! * 100) / 100),
  settings: {
    bars: CHUNK,
    combinations: COMBINATIONS,
    fast: `${FAST[0]}..${FAST.at(-1)}`,
    slow: `${SLOW[0]}..${SLOW.at(-1)} by 5`,
    fee_bps: SETTINGS.feeBps,
    slippage_bps_ours: SETTINGS.slippageBps,
    runs: RUNS,
  },
  engine: { ...o, bar_steps_per_s: Math.round((COMBINATIONS * CHUNK) / (o.median_ms / 1000)) },
  numpy_reference: { ...n, numpy: numpyVersion },
  speed_vs_numpy: Math.round((n.median_ms / o.median_ms) * 100) / 100,
  same_grid: {
    total_return_rank_correlation:
      Math.round(rankCorrelation(oursGrid!.totalReturn, theirGrid!.totalReturn) * 10_000) / 10_000,
    trades_equal: oursGrid!.trades.filter((t, i) => t === theirGrid!.trades[i]).length,
    note: "ours fills at the next bar's open with slippage and sizes in whole units; numpy trades close to close: figures close, not equal",
  },
};
writeFileSync(args.out!, `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
