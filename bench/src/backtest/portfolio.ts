// bench/backtest/portfolio: a universe traded as one portfolio (docs/portfolios.md).
//   daily   100 symbols of daily bars over 20 years (5,040 bars each, ~504,000 in all), one
//           ma_crossover(20,100) per symbol, fees and slippage: target under 1 s, aligning the
//           symbols on one clock included (generating the bars is not).
//   minute  10 symbols of 1-minute bars over a quarter, half a year and a year: the time per
//           bar, to show the cost is linear in bars.
// Each figure is the first run of a fresh process (JIT warm-up included) and, beside it, the
// median of the next runs in the same process (a long-running bots service's).
// Usage: npx tsx bench/src/backtest/portfolio.ts [--runs 5] [--out FILE]
import { loadavg } from "node:os";
import { writeFileSync } from "node:fs";
import {
  alignBars,
  generateBars,
  PortfolioRun,
  resolveStrategy,
  type Bars,
} from "@svc/bots/engine";
import { machine } from "../machine.js";

const arg = (name: string, fallback?: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1]! : fallback;
};
const runs = Number(arg("runs", "5"));
const settings = { initialCash: 1_000_000, feeBps: 5, slippageBps: 2, positionSize: 1 };
const { family, params } = resolveStrategy("ma_crossover", { fast: 20, slow: 100 });

function universe(symbols: number, bars: number, intervalMs: number): Map<string, Bars> {
  const m = new Map<string, Bars>();
  for (let i = 0; i < symbols; i++)
    m.set(
      `S${String(i).padStart(3, "0")}`,
      generateBars({ seed: i + 1, count: bars, startMs: Date.UTC(2005, 0, 3), intervalMs }),
    );
  return m;
}

function once(series: Map<string, Bars>) {
  const t0 = performance.now();
  const aligned = alignBars(series);
  const t1 = performance.now();
  const run = new PortfolioRun(settings, aligned.symbols);
  run.runStrategies(
    aligned,
    aligned.symbols.map(() => family.create(params)),
  );
  const result = run.books.finish(aligned.gaps);
  const t2 = performance.now();
  return {
    ms: Math.round((t2 - t0) * 10) / 10,
    align_ms: Math.round((t1 - t0) * 10) / 10,
    trades: result.trades,
    final_equity: Math.round(result.finalEquity),
  };
}

function measure(label: string, series: Map<string, Bars>) {
  const bars = [...series.values()].reduce((n, b) => n + b.length, 0);
  const first = once(series);
  const next: number[] = [];
  for (let r = 0; r < runs; r++) {
    const again = once(series);
    if (again.final_equity !== first.final_equity) throw new Error(`${label}: runs differ`);
    next.push(again.ms);
  }
  next.sort((a, b) => a - b);
  const median = next[Math.floor(next.length / 2)]!;
  const row = {
    label,
    symbols: series.size,
    bars,
    first_run: first,
    warm_median_ms: median,
    warm_runs_ms: next,
    ns_per_bar_warm: Math.round((median * 1e6) / bars),
    bars_per_s_first: Math.round(bars / (first.ms / 1000)),
  };
  console.log(JSON.stringify(row));
  return row;
}

const load = [loadavg()[0]!];
const DAY = 86_400_000;
const rows = [measure("daily 100 symbols x 20 years", universe(100, 5_040, DAY))];
load.push(loadavg()[0]!);
for (const [label, minutes] of [
  ["minute 10 symbols x 1 quarter", 131_400],
  ["minute 10 symbols x 1/2 year", 262_800],
  ["minute 10 symbols x 1 year", 525_600],
] as const) {
  rows.push(measure(label, universe(10, minutes, 60_000)));
  load.push(loadavg()[0]!);
}
const out = {
  bench: "backtest/portfolio",
  machine: machine(),
  load_1m: load,
  target: "daily 100 symbols x 20 years under 1 s (first run of a fresh process)",
  rows,
};
const file = arg("out");
if (file) writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
