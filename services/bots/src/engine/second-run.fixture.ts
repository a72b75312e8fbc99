// Two backtests in one process, as the bots service runs them (chunks of a data set's size, the
// collections of an idle process between them), printing SECOND RUN between the two: with
// --trace-deopt and --trace-opt, what V8 prints after it is what the second backtest paid for.
// Usage: second-run.fixture.ts [event|vectorised] (the engine's path; event-driven by default).
import { CSV_CHUNK_BARS } from "./csv-source.js";
import {
  barsAt,
  BacktestRun,
  engineSettingsFrom,
  generateBars,
  resolveStrategy,
  vectorisedRun,
} from "./index.js";

const bars = generateBars({
  seed: 7,
  count: 1_000_000,
  startMs: Date.UTC(2000, 0, 1),
  intervalMs: 60_000,
  startPrice: 100,
});
const { family, params } = resolveStrategy("ma_crossover", { fast: 20, slow: 100 });
const settings = engineSettingsFrom({ initialCash: 1e6, feeBps: 5, slippageBps: 2 });
const collect = (globalThis as { gc?: () => void }).gc!;
for (const label of ["FIRST RUN", "SECOND RUN"]) {
  for (let k = 0; k < 4; k++) collect();
  await new Promise((resolve) => setTimeout(resolve, 50));
  console.log(label);
  const run =
    process.argv[2] === "vectorised"
      ? vectorisedRun(family, params, settings, { symbol: "BTC-USD" })
      : new BacktestRun(family.create(params), settings, { symbol: "BTC-USD" });
  for (let from = 0; from < bars.length; from += CSV_CHUNK_BARS)
    run.feed(barsAt(bars, from, Math.min(bars.length, from + CSV_CHUNK_BARS)));
  console.log(`trades ${run.finish().trades}`);
}
