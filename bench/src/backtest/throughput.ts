// bench/backtest: bars per second of one ma_crossover(20,100) backtest with fees and slippage on
// 1, 10 and 50 million synthetic one-minute bars, single core, each figure a fresh process (JIT
// warm-up included; bars generated in chunks of a million outside the timed part). Side by side
// in one sitting, alternated run by run so the machine's load falls on every engine alike:
//   event       the event-driven engine (a strategy's onBar per bar, the shared order path)
//   vectorised  the same run with the family's targets computed a column at a time
//   hand        bench/src/backtest/hand-loop.ts: one loop, every piece of state in a local
//   previous    (with --previous DIR) the engine of another checkout, e.g. a worktree of 4f85b7a
//   today       (with --today DIR) the engine before this change, e.g. a worktree of HEAD
//   <label>     (with --compare label=DIR,label=DIR) the engines of more checkouts, to tell which
//               change a difference came with
// Before timing, each size is checked in one process: the vectorised run must equal the
// event-driven one (figures, curve, trades) and the hand loop must give the engine's figures.
// Then, for --warm-sizes (1e6 unless --warm-sizes none), the same backtest run a second time in
// one process (the JIT warm: what a long-running process such as the bots service sees), the
// event-driven engine, the hand loop and the engines of --previous/--today side by side, so a
// fresh process's fixed cost can be told from a per-bar cost.
// Usage: npx tsx bench/src/backtest/throughput.ts [--sizes 1e6,1e7,5e7] [--runs 3]
//          [--previous /tmp/engine-4f85b7a] [--today /tmp/engine-head]
//          [--compare unified=/tmp/engine-2b6dc3e,results=/tmp/engine-01fd084]
//          [--warm-sizes 1e6|none] [--out FILE]
import { execFileSync } from "node:child_process";
import { loadavg } from "node:os";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { machine } from "../machine.js";

const arg = (name: string, fallback?: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1]! : fallback;
};
const sizes = arg("sizes", "1e6,1e7,5e7")!.split(",").map(Number);
const runs = Number(arg("runs", "3"));
const previous = arg("previous");
const today = arg("today");
const oneRun = fileURLToPath(new URL("./one-run.ts", import.meta.url));
const tsx = fileURLToPath(new URL("../../../node_modules/.bin/tsx", import.meta.url));

interface Run {
  engine: string;
  cpu_ms: number;
  ms: number;
  bars_per_s: number;
  bars_per_cpu_s: number;
  final_equity: number;
  trades: number;
  peak_rss_mib: number;
}
const fresh = (engine: string, n: number): Run =>
  JSON.parse(execFileSync(tsx, [oneRun, engine, String(n)], { encoding: "utf8" }).trim()) as Run;
interface WarmRun extends Run {
  first_run: { ms: number; bars_per_s: number; cpu_ms: number; bars_per_cpu_s: number };
}
/** Two runs in one process: the figures of the second (JIT warm), the first's beside them. */
const warm = (engine: string, n: number): WarmRun =>
  JSON.parse(
    execFileSync(tsx, ["--expose-gc", oneRun, engine, String(n), "warm"], {
      encoding: "utf8",
    }).trim(),
  ) as WarmRun;

const engines: Array<[string, string]> = [
  ["event", "event"],
  ["vectorised", "vectorised"],
  ["hand", "hand"],
];
if (previous) engines.push(["previous", `previous=${previous}`]);
if (today) engines.push(["today", `previous=${today}`]);
for (const pair of arg("compare", "")!.split(",").filter(Boolean)) {
  const [label, dir] = pair.split("=");
  if (!label || !dir) throw new Error(`--compare takes label=DIR pairs, not ${pair}`);
  engines.push([label, `previous=${dir}`]);
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0]!, median: s[Math.floor(s.length / 2)]!, max: s.at(-1)! };
};
const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;

/** Min, median and max of each engine's runs, and the ratios of the medians that matter. */
function summary(seen: Record<string, Run[]>, key: "bars_per_s" | "bars_per_cpu_s") {
  const per = Object.fromEntries(
    Object.entries(seen).map(([k, v]) => [k, stats(v.map((x) => x[key]))]),
  );
  return {
    runs: Object.fromEntries(Object.entries(seen).map(([k, v]) => [k, v.map((x) => x[key])])),
    min_median_max: per,
    ratios_of_medians: {
      hand_over_event: ratio(per.hand!.median, per.event!.median),
      vectorised_over_event: ratio(per.vectorised!.median, per.event!.median),
      ...(per.previous
        ? { event_over_previous: ratio(per.event!.median, per.previous.median) }
        : {}),
      ...(per.today ? { event_over_today: ratio(per.event!.median, per.today.median) } : {}),
      ...Object.fromEntries(
        engines
          .filter(([name]) => !["event", "vectorised", "hand", "previous", "today"].includes(name))
          .map(([name]) => [`event_over_${name}`, ratio(per.event!.median, per[name]!.median)]),
      ),
    } as Record<string, number>,
  };
}

const load = [loadavg()[0]!];
const rows: Array<{
  bars: number;
  wall: ReturnType<typeof summary>;
  cpu: ReturnType<typeof summary>;
  [more: string]: unknown;
}> = [];
for (const n of sizes) {
  const check = JSON.parse(
    execFileSync(tsx, [oneRun, "check", String(n)], { encoding: "utf8" }).trim(),
  ) as { check: { vectorised: boolean; hand: boolean }; trades: number };
  if (!check.check.vectorised || !check.check.hand)
    throw new Error(`not the same answers at ${n} bars: ${JSON.stringify(check)}`);
  const seen: Record<string, Run[]> = {};
  for (let r = 0; r < runs; r++) {
    // Rotate who goes first, so no engine always runs right after the same neighbour.
    for (let k = 0; k < engines.length; k++) {
      const [name, spec] = engines[(k + r) % engines.length]!;
      (seen[name] ??= []).push(fresh(spec, n));
    }
    load.push(loadavg()[0]!);
  }
  const row = {
    bars: n,
    trades: check.trades,
    same_answers: check.check,
    wall: summary(seen, "bars_per_s"),
    cpu: summary(seen, "bars_per_cpu_s"),
    peak_rss_mib: Object.fromEntries(
      Object.entries(seen).map(([k, v]) => [k, Math.max(...v.map((x) => x.peak_rss_mib))]),
    ),
  };
  rows.push(row);
  console.log(JSON.stringify(row));
}
/**
 * The same backtest twice per process, alternated like the fresh runs: the first run is the
 * fresh-process figure again, the second the one a long-running process sees once warm.
 */
function warmRows() {
  const spec = arg("warm-sizes", "1e6")!;
  if (spec === "none") return [];
  const side = engines.filter(([name]) => name !== "vectorised");
  return spec
    .split(",")
    .map(Number)
    .map((n) => {
      const seen: Record<string, WarmRun[]> = {};
      for (let r = 0; r < runs; r++) {
        for (let k = 0; k < side.length; k++) {
          const [name, spec] = side[(k + r) % side.length]!;
          (seen[name] ??= []).push(warm(spec, n));
        }
        load.push(loadavg()[0]!);
      }
      const med = (xs: number[]) => stats(xs).median;
      const per = Object.fromEntries(
        Object.entries(seen).map(([name, v]) => [
          name,
          {
            second_run: {
              bars_per_s: stats(v.map((x) => x.bars_per_s)),
              bars_per_cpu_s: stats(v.map((x) => x.bars_per_cpu_s)),
              ms: med(v.map((x) => x.ms)),
              cpu_ms: med(v.map((x) => x.cpu_ms)),
            },
            first_run: {
              bars_per_s: stats(v.map((x) => x.first_run.bars_per_s)),
              bars_per_cpu_s: stats(v.map((x) => x.first_run.bars_per_cpu_s)),
              ms: med(v.map((x) => x.first_run.ms)),
              cpu_ms: med(v.map((x) => x.first_run.cpu_ms)),
            },
          },
        ]),
      );
      const second = (name: string, key: "bars_per_s" | "bars_per_cpu_s") =>
        per[name]!.second_run[key].median;
      const ratios: Record<string, number> = {};
      for (const key of ["bars_per_s", "bars_per_cpu_s"] as const) {
        const tag = key === "bars_per_s" ? "wall" : "cpu";
        ratios[`hand_over_event_${tag}`] = ratio(second("hand", key), second("event", key));
        for (const name of Object.keys(per).filter((x) => !["event", "hand"].includes(x)))
          ratios[`event_over_${name}_${tag}`] = ratio(second("event", key), second(name, key));
      }
      const row = { bars: n, runs: seen, per_engine: per, ratios_of_second_run_medians: ratios };
      console.log(JSON.stringify({ warm: n, per_engine: per, ratios }));
      return row;
    });
}
const warmed = warmRows();

/**
 * A fresh process's time is a fixed cost (the JIT compiling the engine, paid once per process)
 * plus a cost per bar: the line through two sizes' median times tells the two apart, per engine.
 */
function perBarCost() {
  const fits: Record<string, unknown> = {};
  for (let i = 0; i + 1 < rows.length; i++) {
    const [small, large] = [rows[i]!, rows[i + 1]!];
    const fit: Record<string, Record<string, number>> = {};
    for (const tag of ["wall", "cpu"] as const) {
      const line = (name: string) => {
        const msSmall = (small.bars / small[tag].min_median_max[name]!.median) * 1000;
        const msLarge = (large.bars / large[tag].min_median_max[name]!.median) * 1000;
        const nsPerBar = ((msLarge - msSmall) * 1e6) / (large.bars - small.bars);
        const round = (x: number) => Math.round(x * 100) / 100;
        return {
          ns_per_bar: round(nsPerBar),
          fixed_ms: round(msSmall - (small.bars * nsPerBar) / 1e6),
        };
      };
      for (const name of Object.keys(small[tag].min_median_max)) {
        const l = line(name);
        fit[name] = {
          ...fit[name],
          [`${tag}_ns_per_bar`]: l.ns_per_bar,
          [`${tag}_fixed_ms`]: l.fixed_ms,
        };
      }
      fit.ratios = {
        ...fit.ratios,
        [`event_over_hand_ns_per_bar_${tag}`]: ratio(
          line("event").ns_per_bar,
          line("hand").ns_per_bar,
        ),
      };
    }
    fits[
      `${small.bars.toExponential().replace("+", "")}_to_${large.bars.toExponential().replace("+", "")}`
    ] = fit;
  }
  return fits;
}

const result = {
  note: "wall: bars per second of the wall clock; cpu: bars per second of the process's CPU time (all its threads), which another process holding the core does not inflate. Ratios are of medians, taken in the same sitting.",
  benchmark:
    "one ma_crossover(20,100) backtest with fees and slippage, synthetic 1-minute bars in chunks of 1,000,000, single core, each run a fresh process",
  machine: machine(),
  load_average_1m: { start: load[0], end: load.at(-1), max: Math.max(...load) },
  runs_per_engine: runs,
  engines: Object.fromEntries(engines),
  anchors:
    "Backtrader about 13,000-35,000 bars/s; LEAN flags under 40,000 data points/s as slow; goals: vectorised >= 100,000,000 bars/s, hand loop / event-driven <= 1.5, event-driven >= 0.95x the engine of 4f85b7a at 1 M bars",
  rows,
  ...(rows.length > 1
    ? {
        per_bar_cost_between_sizes: {
          note: "from the medians of the rows: time = fixed_ms + bars x ns_per_bar through each two sizes, per engine; event_over_hand compares the engine's cost per bar with the hand loop's, without the fixed cost each pays once per process",
          ...perBarCost(),
        },
      }
    : {}),
  ...(previous ? { paired_with_previous_engine: pairedWithPrevious() } : {}),
  ...(warmed.length > 0
    ? {
        second_run_in_one_process: {
          note: "each process runs the same backtest twice, a new run over the same bars each time; second_run is the second (the JIT warm, as in the long-running bots service), first_run the first (the fresh-process figure again); not comparable with a fresh process's fixed cost",
          rows: warmed,
        },
      }
    : {}),
};
/** The issue-16 figure: this engine against the one of --previous, size by size, from the rows. */
function pairedWithPrevious() {
  const paired: Record<string, unknown> = {
    note: `fresh processes of the engine in ${previous} and of this one, alternated in one sitting (the rows' wall figures); load average above`,
  };
  for (const row of rows) {
    const w = row.wall;
    paired[`bars_${row.bars.toExponential().replace("+", "")}`] = {
      previous_engine_bars_per_s: w.runs.previous,
      this_engine_bars_per_s: w.runs.event,
      previous_min_median_max: w.min_median_max.previous,
      this_min_median_max: w.min_median_max.event,
      ratio_of_medians: w.ratios_of_medians.event_over_previous,
      ratio_of_medians_cpu: row.cpu.ratios_of_medians.event_over_previous,
    };
  }
  return paired;
}
const out = arg(
  "out",
  fileURLToPath(new URL("../../results/backtest-throughput.json", import.meta.url)),
)!;
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
