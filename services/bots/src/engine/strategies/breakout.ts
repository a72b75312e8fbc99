import type { Bars } from "../bars.js";
import { declaredParams, InProcessStrategy } from "./in-process.js";
import definition from "./sdk/breakout.strategy.js";
import type { AnyStrategyDefinition, StrategyFamily, TargetSource } from "./strategy.js";

/**
 * Donchian breakout (momentum): go long when the close breaks above the highest high of the
 * previous `lookback` bars; go flat when it falls below the lowest low of the previous
 * `exit_lookback` bars. The strategy is ./sdk/breakout.strategy.ts; `columns` is its vectorised twin.
 */
export const breakout: StrategyFamily = {
  family: "breakout",
  definition: definition as AnyStrategyDefinition,
  params: declaredParams(definition as AnyStrategyDefinition),
  check: (p) =>
    (p.exit_lookback as number) > (p.lookback as number)
      ? {
          param: "exit_lookback",
          message: `exit_lookback (${p.exit_lookback}) must not exceed lookback (${p.lookback})`,
        }
      : null,
  create: (p) => new InProcessStrategy(definition as AnyStrategyDefinition, p),
  columns: (p) => new BreakoutColumns(p.lookback as number, p.exit_lookback as number),
  targets(bars: Bars, p) {
    const n = p.lookback as number;
    const m = p.exit_lookback as number;
    const out = new Float64Array(bars.length);
    let pos = 0;
    for (let i = n; i < bars.length; i++) {
      let hi = -Infinity;
      for (let j = i - n; j < i; j++) hi = Math.max(hi, bars.high[j]!);
      let lo = Infinity;
      for (let j = i - m; j < i; j++) lo = Math.min(lo, bars.low[j]!);
      if (pos === 0 && bars.close[i]! > hi) pos = 1;
      else if (pos === 1 && bars.close[i]! < lo) pos = 0;
      out[i] = pos;
    }
    return out;
  },
};

/**
 * A window's extreme as bars pass, in O(1) a bar: a queue of the bars that may still be the
 * extreme, their values monotonic from the front. The maximum of a set does not depend on the
 * order it is taken in, so the channel is the one the SDK strategy (./sdk/breakout.strategy.ts) takes, to the last bit.
 */
class Extreme {
  private readonly values: Float64Array;
  private readonly at: Float64Array;
  private head = 0;
  private size = 0;
  constructor(
    private readonly capacity: number,
    /** 1 keeps the maximum, -1 the minimum. */
    private readonly sign: number,
  ) {
    this.values = new Float64Array(capacity);
    this.at = new Float64Array(capacity);
  }
  /** The extreme of the bars from `first` on (at least one of them pushed). */
  since(first: number): number {
    while (this.at[this.head]! < first) {
      this.head = this.head + 1 === this.capacity ? 0 : this.head + 1;
      this.size--;
    }
    return this.values[this.head]!;
  }
  push(value: number, bar: number): void {
    const cap = this.capacity;
    // Bars no better than the new one can never be the extreme again.
    while (this.size > 0) {
      let back = this.head + this.size - 1;
      if (back >= cap) back -= cap;
      if ((this.values[back]! - value) * this.sign > 0) break;
      this.size--;
    }
    let slot = this.head + this.size;
    if (slot >= cap) slot -= cap;
    this.values[slot] = value;
    this.at[slot] = bar;
    this.size++;
  }
}

/** The breakout over columns: the channels kept by `Extreme` rather than rescanned each bar. */
class BreakoutColumns implements TargetSource {
  private readonly highs: Extreme;
  private readonly lows: Extreme;
  private count = 0;
  private pos = 0;
  constructor(
    private readonly lookback: number,
    private readonly exitLookback: number,
  ) {
    // Until the first channel is asked for, nothing leaves either queue: lookback bars at most.
    this.highs = new Extreme(lookback + 1, 1);
    this.lows = new Extreme(lookback + 1, -1);
  }
  fill(b: Bars, from: number, to: number, out: Float64Array): void {
    const { high, low, close } = b;
    const { lookback, exitLookback, highs, lows } = this;
    let { count, pos } = this;
    for (let t = from; t < to; t++, count++) {
      if (count >= lookback) {
        const hi = highs.since(count - lookback);
        const lo = lows.since(count - exitLookback);
        if (pos === 0 && close[t]! > hi) pos = 1;
        else if (pos === 1 && close[t]! < lo) pos = 0;
      }
      highs.push(high[t]!, count);
      lows.push(low[t]!, count);
      out[t - from] = pos;
    }
    this.count = count;
    this.pos = pos;
  }
}
