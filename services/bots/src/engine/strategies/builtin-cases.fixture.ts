// The runs that hold the built-in families to their recorded results (builtin-golden.json): each
// family over the bundled data set and over synthetic bars, with several parameter sets and both
// cost settings, fed in chunks as a backtest feeds them. A run's record is everything a user
// sees of it: every figure, every daily return, every point of the equity curve, every trade and
// every order and fill record. Its digest is over those numbers written exactly (-0 and NaN too).
import { createHash } from "node:crypto";
import { barsAt, type Bars } from "../bars.js";
import { loadBars } from "../data-source.js";
import { BacktestRun } from "../event-engine.js";
import type { RunMetrics } from "../metrics.js";
import type { EngineSettings } from "../settings.js";
import { generateBars } from "../synthetic-source.js";
import type { ExecutionEvent } from "../../execution/index.js";
import { resolveStrategy } from "./registry.js";
import type { ParamValue, Strategy } from "./strategy.js";

export interface BuiltInCase {
  name: string;
  family: string;
  params: Record<string, ParamValue>;
  data: keyof typeof DATA;
  settings: EngineSettings;
  chunk: number;
}

const costly: EngineSettings = { initialCash: 1e6, feeBps: 4, slippageBps: 3, positionSize: 0.8 };
const bot: EngineSettings = { ...costly, maxVolumeParticipation: 1 };

const DATA = {
  bundled: () => loadBars("csv:sample-btc-usd-1d"),
  daily: async () => generateBars({ seed: 11, count: 3_000 }),
  minutes: async () => generateBars({ seed: 2024, count: 60_000, intervalMs: 60_000 }),
  hours: async () => generateBars({ seed: 5, count: 20_000, intervalMs: 3_600_000, startPrice: 3 }),
  // Past the millionth bar, where ma_crossover recomputes its running sums.
  long: async () => generateBars({ seed: 7, count: 1_100_000, intervalMs: 60_000 }),
};

const PARAMS: Record<string, Record<string, ParamValue>[]> = {
  ma_crossover: [
    {},
    { fast: 12, slow: 48, allow_short: true },
    { fast: 1, slow: 2 },
    { fast: 5, slow: 6, allow_short: true },
  ],
  mean_reversion_bands: [
    {},
    { window: 10, k: 1.5, allow_short: true },
    { window: 50, k: 0.5 },
    { window: 2, k: 0.1, allow_short: true },
  ],
  breakout: [
    {},
    { lookback: 40, exit_lookback: 15 },
    { lookback: 2, exit_lookback: 1 },
    { lookback: 55, exit_lookback: 55 },
  ],
};

function cases(): BuiltInCase[] {
  const out: BuiltInCase[] = [];
  for (const [family, sets] of Object.entries(PARAMS)) {
    sets.forEach((params, i) => {
      const settings = i % 2 === 0 ? costly : bot;
      for (const [data, chunk] of [
        ["bundled", 1_000],
        ["daily", 333],
        ["minutes", 7_777],
        ["hours", 4_096],
      ] as const)
        out.push({
          name: `${family} ${JSON.stringify(params)} ${data}`,
          family,
          params,
          data,
          settings,
          chunk,
        });
    });
  }
  out.push({
    name: `ma_crossover {"fast":20,"slow":100,"allow_short":true} long`,
    family: "ma_crossover",
    params: { fast: 20, slow: 100, allow_short: true },
    data: "long",
    settings: costly,
    chunk: 65_536,
  });
  return out;
}
export const BUILT_IN_CASES = cases();

const loaded = new Map<string, Promise<Bars>>();
export function barsOf(data: BuiltInCase["data"]): Promise<Bars> {
  let p = loaded.get(data);
  if (!p) loaded.set(data, (p = DATA[data]()));
  return p;
}

export interface RunRecord {
  metrics: Omit<RunMetrics, "dailyReturns" | "results">;
  dailyReturns: number[];
  results: RunMetrics["results"];
  events: ExecutionEvent[];
}

/** A family's run over a case's bars, fed in the case's chunks, with the strategy `make` builds. */
export async function runCase(
  c: BuiltInCase,
  make: (params: Record<string, ParamValue>) => Strategy,
): Promise<RunRecord> {
  const bars = await barsOf(c.data);
  const { params } = resolveStrategy(c.family, c.params);
  const events: ExecutionEvent[] = [];
  const run = new BacktestRun(make(params), c.settings, { onEvent: (e) => events.push(e) });
  for (let at = 0; at < bars.length; at += c.chunk)
    run.feed(barsAt(bars, at, Math.min(bars.length, at + c.chunk)));
  const { dailyReturns, results, ...metrics } = run.finish();
  return { metrics, dailyReturns: [...dailyReturns], results, events };
}

/** The record written exactly: JSON, with -0, NaN and the infinities spelled out. */
export function exactJson(record: unknown): string {
  return JSON.stringify(record, (_key, v: unknown) =>
    typeof v === "number" && (Object.is(v, -0) || !Number.isFinite(v))
      ? `#${Object.is(v, -0) ? "-0" : String(v)}`
      : v,
  );
}

export function digest(record: RunRecord): string {
  return createHash("sha256").update(exactJson(record)).digest("hex");
}
