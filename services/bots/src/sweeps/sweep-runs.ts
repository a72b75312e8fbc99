import type { SweepRun } from "../store/sweeps.repository.js";
import { foldWindows, SweepInputError, type SweepValue } from "./sweep-plan.js";

/** A walk-forward segment shorter than this cannot hold a backtest worth the name. */
export const MIN_BARS_PER_SEGMENT = 20;

export interface RunLayout {
  combinations: Array<Record<string, SweepValue>>;
  dataSource: string;
  /** ISO times; "" for the data's own first or last bar. */
  start: string;
  end: string;
  /** Bars in the whole range. */
  barsTotal: number;
  walkForward: { folds: number; inSampleSegments: number };
}

/**
 * The backtests a sweep queues: one per combination over the range or, with walk-forward, one per
 * combination per fold over its in-sample window (the out-of-sample runs come later). A window's
 * progress total is its share of the range's bars, an estimate: the run counts as it goes.
 */
export function layOutRuns(l: RunLayout): {
  runs: SweepRun[];
  folds: Array<{ is_start: string; is_end: string; oos_end: string }>;
} {
  const request = (params: object, start: string, end: string) => ({
    data_source: l.dataSource,
    start,
    end,
    params,
  });
  const { folds: count, inSampleSegments } = l.walkForward;
  if (!count)
    return {
      runs: l.combinations.map((p, index) => ({
        request: request(p, l.start, l.end),
        barsTotal: l.barsTotal,
        index,
        fold: 0,
      })),
      folds: [],
    };
  const segments = count + inSampleSegments;
  if (l.barsTotal < MIN_BARS_PER_SEGMENT * segments)
    throw new SweepInputError(
      "invalid_parameter",
      `the range holds ${l.barsTotal} bars: too few to cut into ${segments} segments (${count} folds after ${inSampleSegments} in-sample segments) of at least ${MIN_BARS_PER_SEGMENT} bars; widen the range or take fewer folds`,
      "walk_forward.folds",
    );
  const start = Date.parse(l.start);
  const end = Date.parse(l.end);
  const iso = (ms: number) => new Date(ms).toISOString();
  const windows = foldWindows(start, end, count, inSampleSegments);
  const share = (from: number, to: number) =>
    Math.max(1, Math.round((l.barsTotal * (to - from)) / (end - start)));
  return {
    runs: windows.flatMap((w, f) =>
      l.combinations.map((p, index) => ({
        request: request(p, iso(w.isStart), iso(w.isEnd)),
        barsTotal: share(w.isStart, w.isEnd),
        index,
        fold: f + 1,
      })),
    ),
    folds: windows.map((w) => ({
      is_start: iso(w.isStart),
      is_end: iso(w.isEnd),
      oos_end: iso(w.oosEnd),
    })),
  };
}
