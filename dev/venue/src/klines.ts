import type { Exchange } from "./exchange.js";

/** Past bars the venue serves as its history before its own trades (a data set it replays). */
export interface HistorySeed {
  symbol: string;
  /** Open time of the first bar, epoch ms. */
  startMs: number;
  /** Bar size of the closes, ms; klines of a whole multiple of it aggregate them. */
  intervalMs: number;
  /** One close per bar; each bar opens at the previous close. */
  closes: readonly number[];
}

/** A kline: open time, open, high, low, close, volume, quote volume, trade count. */
type Bar = [number, number, number, number, number, number, number, number];

/**
 * Binance's klines over a symbol's history and its trades: bars of `interval` ms opening in
 * [start, end], ascending; with a start, the first `limit` of them (how a client pages forward),
 * without one the last `limit` (the latest).
 */
export function klines(
  exchange: Exchange,
  history: readonly HistorySeed[],
  q: { symbol: string; interval: number; start?: number; end: number; limit: number },
): Bar[] {
  const bars = new Map<number, Bar>();
  const add = (ms: number, o: number, h: number, l: number, c: number, v: number, n: number) => {
    if (ms < (q.start ?? 0) || ms > q.end) return;
    const open = Math.floor(ms / q.interval) * q.interval;
    const bar = bars.get(open);
    if (!bar) bars.set(open, [open, o, h, l, c, v, c * v, n]);
    else {
      bar[2] = Math.max(bar[2], h);
      bar[3] = Math.min(bar[3], l);
      bar[4] = c;
      bar[5] += v;
      bar[6] += c * v;
      bar[7] += n;
    }
  };
  for (const seed of history) {
    if (seed.symbol !== q.symbol || q.interval % seed.intervalMs !== 0) continue;
    seed.closes.forEach((close, i) => {
      const open = i === 0 ? close : seed.closes[i - 1]!;
      const high = Math.max(open, close) * 1.001;
      const low = Math.min(open, close) * 0.999;
      add(seed.startMs + i * seed.intervalMs, open, high, low, close, 1, 1);
    });
  }
  for (const t of exchange.trades)
    if (t.symbol === q.symbol) add(t.time.getTime(), t.price, t.price, t.price, t.price, t.qty, 1);
  const all = [...bars.values()].sort((a, b) => a[0] - b[0]);
  return q.start === undefined ? all.slice(-q.limit) : all.slice(0, q.limit);
}
