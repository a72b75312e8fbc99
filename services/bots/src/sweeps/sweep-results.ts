/**
 * The figures a sweep's results table sorts by, all from a backtest's result summary. For
 * max_drawdown the smallest is the best; for every other, the largest.
 */
export const SORTABLE_METRICS = [
  "sharpe",
  "sortino",
  "total_return",
  "pnl",
  "max_drawdown",
  "win_rate",
  "trades",
  "exposure",
] as const;
export type SortableMetric = (typeof SORTABLE_METRICS)[number];

/** The metrics that may pick a walk-forward fold's winner. */
export const SELECTION_METRICS = [
  "sharpe",
  "sortino",
  "total_return",
  "max_drawdown",
  "win_rate",
] as const;

export const lowerIsBetter = (metric: string) => metric === "max_drawdown";

/** A backtest of a sweep as the results need it. */
export interface RunFigures {
  index: number | null;
  fold: number;
  status: string;
  summary: Record<string, unknown> | null;
}

/** The run's figure, or undefined for a run without one (not finished, failed, not a number). */
export function metricOf(run: RunFigures, metric: string): number | undefined {
  if (run.status !== "success") return undefined;
  const v = run.summary?.[metric];
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/**
 * Orders runs by a metric, best first unless `ascending`; runs without the figure come last, in
 * sweep order (fold, then combination), which also breaks ties, so the order is the same on
 * every read.
 */
export function sortRuns<R extends RunFigures>(runs: R[], metric: string, ascending: boolean): R[] {
  const order = (a: R, b: R) => a.fold - b.fold || (a.index ?? 1e9) - (b.index ?? 1e9);
  return [...runs].sort((a, b) => {
    const x = metricOf(a, metric);
    const y = metricOf(b, metric);
    if (x === undefined || y === undefined) return x === y ? order(a, b) : x === undefined ? 1 : -1;
    return (ascending ? x - y : y - x) || order(a, b);
  });
}

/** The best of a fold's in-sample runs by the sweep's metric; ties go to the lower combination. */
export function bestRun<R extends RunFigures>(runs: R[], metric: string): R | undefined {
  const ranked = sortRuns(runs, metric, lowerIsBetter(metric));
  const best = ranked[0];
  return best && metricOf(best, metric) !== undefined ? best : undefined;
}

/** The out-of-sample runs of a walk-forward chained: what the whole procedure would have earned. */
export function walkForwardSummary(
  folds: Array<{ inSample: number; outOfSample?: RunFigures }>,
  metric: string,
): {
  foldsDone: number;
  outOfSampleReturn: number;
  meanOutOfSampleMetric: number;
  meanInSampleMetric: number;
  efficiency: number;
} {
  const done = folds.filter(
    (f) => f.outOfSample && metricOf(f.outOfSample, "total_return") !== undefined,
  );
  const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
  const growth = done.reduce((g, f) => g * (1 + metricOf(f.outOfSample!, "total_return")!), 1);
  const oos = mean(done.map((f) => metricOf(f.outOfSample!, metric) ?? 0));
  const is = mean(done.map((f) => f.inSample));
  return {
    foldsDone: done.length,
    outOfSampleReturn: done.length ? growth - 1 : 0,
    meanOutOfSampleMetric: oos,
    meanInSampleMetric: is,
    efficiency: is === 0 ? 0 : oos / is,
  };
}
