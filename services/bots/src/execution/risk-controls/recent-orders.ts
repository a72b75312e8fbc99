import type { Side } from "../events.js";
import { emptyNumbers, emptyObjects } from "../warm-shapes.js";

/**
 * The orders a run sent lately (time, side, size, price), oldest first: what the throttle counts
 * and the duplicate check compares with. Entries older than the longest window are dropped as new
 * ones come, so it holds a throttle's worth of orders at most, not a run's.
 */
export class RecentOrders {
  // Each born in the kind of element it holds (see warm-shapes.ts).
  readonly time: number[] = emptyNumbers();
  readonly side: Side[] = emptyObjects();
  readonly units: number[] = emptyNumbers();
  readonly price: number[] = emptyNumbers();
  /** Index of the oldest entry still inside the horizon. */
  start = 0;

  constructor(private readonly horizonMs: number) {}

  get size(): number {
    return this.time.length - this.start;
  }

  add(time: number, side: Side, units: number, price: number): void {
    if (this.horizonMs <= 0) return;
    this.time.push(time);
    this.side.push(side);
    this.units.push(units);
    this.price.push(price);
    const from = time - this.horizonMs;
    while (this.start < this.time.length && this.time[this.start]! < from) this.start++;
    // Compact now and then, so the arrays do not grow with the run.
    if (this.start > 64 && this.start * 2 > this.time.length) this.compact();
  }

  private compact(): void {
    for (const a of [this.time, this.side, this.units, this.price]) a.splice(0, this.start);
    this.start = 0;
  }
}
