import type { VenueTrade } from "../execution/kernel/live-venue.js";

/** A bar built from the venue's own trades. */
export interface LiveBar {
  /** The bar's close time (epoch ms). */
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/**
 * Folds a venue's trades into bars of `barMs`: `close(now)` hands the bar on when it has any
 * trade (a quiet interval makes no bar: a strategy never decides on a price nobody traded at).
 */
export class BarBuilder {
  private bar: LiveBar | null = null;

  constructor(
    private readonly barMs: number,
    private readonly onBar: (bar: LiveBar) => void,
  ) {
    if (!(barMs > 0)) throw new RangeError(`a bar must last a positive number of ms, not ${barMs}`);
  }

  trade(t: VenueTrade): void {
    if (!(Number.isFinite(t.price) && t.price > 0 && Number.isFinite(t.units))) return;
    const b = this.bar;
    if (!b) {
      this.bar = {
        time: 0,
        open: t.price,
        high: t.price,
        low: t.price,
        close: t.price,
        volume: t.units,
      };
      return;
    }
    b.high = Math.max(b.high, t.price);
    b.low = Math.min(b.low, t.price);
    b.close = t.price;
    b.volume += t.units;
  }

  close(now: number): void {
    const b = this.bar;
    if (!b) return;
    this.bar = null;
    this.onBar({ ...b, time: now });
  }
}
