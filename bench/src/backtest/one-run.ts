// One timed backtest in this (fresh) process, printed as one JSON line; throughput.ts runs it.
// Usage: tsx one-run.ts <event|vectorised|hand|previous=DIR|check> <bars> [warm]
//   warm: the same backtest twice in this process, a new run over the same bars each time; the
//   figures are the second run's (the JIT warm, as in a long-running process such as the bots
//   service), the first run's beside them.
//   previous=DIR: the engine of another checkout (DIR/services/bots/src/engine), for paired runs.
//   check: event, vectorised and hand loop over the same bars in this process; exits 1 unless
//   the vectorised run equals the event-driven one and the hand loop gives its figures.
import { isDeepStrictEqual } from "node:util";
import {
  allocateBars,
  BacktestRun,
  resolveStrategy,
  vectorisedRun,
  type Bars,
} from "@svc/bots/engine";
import { HandLoop } from "./hand-loop.js";
import { CHUNK, eachChunk, MA, SETTINGS } from "./synthetic-chunks.js";

const [which = "event", barsArg = "1e6", mode = "fresh"] = process.argv.slice(2);
const n = Number(barsArg);
const { family, params } = resolveStrategy("ma_crossover", MA);

interface Feedable {
  feed(b: Bars): void;
}
async function engineFor(kind: string): Promise<Feedable & { finish(): unknown }> {
  if (kind === "event") return new BacktestRun(family.create(params), SETTINGS);
  if (kind === "vectorised") return vectorisedRun(family, params, SETTINGS);
  if (kind === "hand") return new HandLoop(MA.fast, MA.slow, SETTINGS);
  if (kind.startsWith("previous=")) {
    const dir = kind.slice("previous=".length);
    const old = await import(`${dir}/services/bots/src/engine/index.ts`);
    const f = old.resolveStrategy("ma_crossover", MA);
    return new old.BacktestRun(f.family.create(f.params), SETTINGS);
  }
  throw new Error(`unknown engine ${kind}`);
}

if (which === "check") {
  const event = new BacktestRun(family.create(params), SETTINGS);
  const vector = vectorisedRun(family, params, SETTINGS);
  const hand = new HandLoop(MA.fast, MA.slow, SETTINGS);
  eachChunk(n, (c) => {
    event.feed(c);
    vector.feed(c);
    hand.feed(c);
  });
  const e = event.finish();
  const v = vector.finish();
  const h = hand.finish();
  const mine = {
    finalEquity: e.finalEquity,
    fees: e.fees,
    trades: e.trades,
    winRate: e.winRate,
    maxDrawdown: e.maxDrawdown,
    exposure: e.exposure,
    dailyReturns: e.dailyReturns,
  };
  const ok = { vectorised: isDeepStrictEqual(v, e), hand: isDeepStrictEqual(h, mine) };
  console.log(JSON.stringify({ check: ok, bars: n, trades: e.trades, finalEquity: e.finalEquity }));
  process.exit(ok.vectorised && ok.hand ? 0 : 1);
}

/** One buffer for both runs of `warm`: a second run allocates no new bars for the GC to find. */
const buffer = allocateBars(CHUNK);
interface Timed {
  ms: number;
  cpuMs: number;
  result: { finalEquity: number; trades: number };
}
/** Feeds a new run of the engine every chunk and finishes it; feed and finish timed. */
async function timed(): Promise<Timed> {
  // A long-running process collects a finished run's garbage between runs: the second run of
  // `warm` starts from a collected heap (throughput.ts passes --expose-gc), not in the first's GC.
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    // and is idle after it: the collector's sweeping on other threads ends before the timing.
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const run = await engineFor(which);
  let ms = 0;
  // CPU time beside wall time: on a shared machine the wall clock also counts the time other
  // processes held the core; the CPU time (every thread: the JIT's compiles, the GC) does not.
  let cpuMs = 0;
  eachChunk(
    n,
    (c) => {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      run.feed(c);
      const used = process.cpuUsage(c0);
      ms += performance.now() - t0;
      cpuMs += (used.user + used.system) / 1000;
    },
    buffer,
  );
  // finish() is timed too: it builds the run's results (the trade list, the curve's points).
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const result = run.finish() as Timed["result"];
  const used = process.cpuUsage(c0);
  ms += performance.now() - t0;
  cpuMs += (used.user + used.system) / 1000;
  return { ms, cpuMs, result };
}
const round = (x: number) => Math.round(x * 10) / 10;
const first = await timed();
const { ms, cpuMs, result } = mode === "warm" ? await timed() : first;
console.log(
  JSON.stringify({
    engine: which.replace(/=.*/, ""),
    bars: n,
    ms: round(ms),
    bars_per_s: Math.round(n / (ms / 1000)),
    cpu_ms: round(cpuMs),
    bars_per_cpu_s: Math.round(n / (cpuMs / 1000)),
    final_equity: result.finalEquity,
    trades: result.trades,
    peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
    ...(mode === "warm"
      ? {
          warm: true,
          first_run: {
            ms: round(first.ms),
            bars_per_s: Math.round(n / (first.ms / 1000)),
            cpu_ms: round(first.cpuMs),
            bars_per_cpu_s: Math.round(n / (first.cpuMs / 1000)),
          },
        }
      : {}),
  }),
);
