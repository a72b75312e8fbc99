import { allocateBars, type Bars } from "../bars.js";

/**
 * A portfolio's bars on one clock: every time any symbol has a bar, and each symbol's columns at
 * those times, NaN where that symbol has no bar (never filled from a neighbour: a run neither
 * trades nor decides a symbol at a time it has no bar). Every symbol's `time` column is the
 * shared `time`, so a block of them is what the sandbox's protocol sends.
 */
export interface AlignedBars {
  symbols: readonly string[];
  /** The union of the symbols' bar times, strictly increasing. */
  time: Float64Array;
  /** One column set per symbol, in `symbols` order, each `time.length` long. */
  bars: readonly Bars[];
  gaps: readonly SymbolGaps[];
}

/** Where a symbol's data does not reach the portfolio's clock: reported, not papered over. */
export interface SymbolGaps {
  symbol: string;
  /** Bars the symbol has. */
  bars: number;
  /** Times of the clock before the symbol's first bar or after its last: it was not listed. */
  outside: number;
  /** Times of the clock between its first and last bar where it has none: holes in its data. */
  missing: number;
  /** The first of those holes (epoch ms), absent when there is none. */
  firstMissing?: number;
}

/**
 * Aligns each symbol's bars (times strictly increasing within a symbol) on the union of their
 * times. O(total bars · log) for the clock, then one pass per symbol.
 */
export function alignBars(series: ReadonlyMap<string, Bars>): AlignedBars {
  const symbols = [...series.keys()];
  // The clock by merging sorted columns one at a time: linear in bars when the symbols share
  // their times (the usual case), where sorting every bar would not be.
  let time: Float64Array = new Float64Array(0);
  for (const b of series.values()) time = union(time, b.time.subarray(0, b.length));
  const n = time.length;
  const bars: Bars[] = [];
  const gaps: SymbolGaps[] = [];
  for (const symbol of symbols) {
    const src = series.get(symbol)!;
    if (src.length === n) {
      // Every time of the clock is one of its bars: its columns as they are, no copy.
      bars.push({
        length: n,
        time,
        open: src.open.subarray(0, n),
        high: src.high.subarray(0, n),
        low: src.low.subarray(0, n),
        close: src.close.subarray(0, n),
        volume: src.volume.subarray(0, n),
      });
      gaps.push({ symbol, bars: n, outside: 0, missing: 0 });
      continue;
    }
    const out = allocateBars(n);
    out.time = time;
    for (const k of ["open", "high", "low", "close", "volume"] as const) out[k].fill(NaN);
    let outside = 0;
    let missing = 0;
    let firstMissing: number | undefined;
    const first = src.length > 0 ? src.time[0]! : Infinity;
    const last = src.length > 0 ? src.time[src.length - 1]! : -Infinity;
    for (let t = 0, j = 0; t < n; t++) {
      const clock = time[t]!;
      if (j < src.length && src.time[j] === clock) {
        out.open[t] = src.open[j]!;
        out.high[t] = src.high[j]!;
        out.low[t] = src.low[j]!;
        out.close[t] = src.close[j]!;
        out.volume[t] = src.volume[j]!;
        j++;
      } else if (clock < first || clock > last) outside++;
      else {
        missing++;
        firstMissing ??= clock;
      }
    }
    bars.push(out);
    gaps.push({
      symbol,
      bars: src.length,
      outside,
      missing,
      ...(firstMissing !== undefined ? { firstMissing } : {}),
    });
  }
  return { symbols, time, bars, gaps };
}

/** The sorted union of two strictly increasing columns. */
function union(a: Float64Array, b: Float64Array): Float64Array {
  if (a.length === 0) return b;
  if (a.length === b.length) {
    let same = true;
    for (let i = 0; i < a.length && same; i++) same = a[i] === b[i];
    if (same) return a;
  }
  const out = new Float64Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    out[n++] = x < y ? x : y;
    if (x <= y) i++;
    if (y <= x) j++;
  }
  while (i < a.length) out[n++] = a[i++]!;
  while (j < b.length) out[n++] = b[j++]!;
  return out.subarray(0, n);
}
