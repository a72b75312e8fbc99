/** OHLCV bars in columns (typed arrays): the engine's hot loop reads them without allocating. */
export interface Bars {
  length: number;
  /** Bar open time, epoch milliseconds, strictly increasing. */
  time: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
  volume: Float64Array;
}

export function allocateBars(length: number): Bars {
  return {
    length,
    time: new Float64Array(length),
    open: new Float64Array(length),
    high: new Float64Array(length),
    low: new Float64Array(length),
    close: new Float64Array(length),
    volume: new Float64Array(length),
  };
}

/** Writes one bar at position `i` (a parser's callback filling a chunk). */
export function setBar(
  bars: Bars,
  i: number,
  time: number,
  open: number,
  high: number,
  low: number,
  close: number,
  volume: number,
): void {
  bars.time[i] = time;
  bars.open[i] = open;
  bars.high[i] = high;
  bars.low[i] = low;
  bars.close[i] = close;
  bars.volume[i] = volume;
}

/** The bars whose time lies in [start, end), as views (no copy). */
export function sliceBars(bars: Bars, startMs = -Infinity, endMs = Infinity): Bars {
  let from = 0;
  while (from < bars.length && bars.time[from]! < startMs) from++;
  let to = from;
  while (to < bars.length && bars.time[to]! < endMs) to++;
  return barsAt(bars, from, to);
}

/** The bars at positions [from, to), as views (no copy). */
export function barsAt(bars: Bars, from: number, to: number): Bars {
  return {
    length: to - from,
    time: bars.time.subarray(from, to),
    open: bars.open.subarray(from, to),
    high: bars.high.subarray(from, to),
    low: bars.low.subarray(from, to),
    close: bars.close.subarray(from, to),
    volume: bars.volume.subarray(from, to),
  };
}
