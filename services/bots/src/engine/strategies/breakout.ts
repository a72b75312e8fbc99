import type { Bars } from "../bars.js";
import type { Strategy, StrategyFamily } from "./strategy.js";

/**
 * Donchian breakout (momentum): go long when the close breaks above the highest high of the
 * previous `lookback` bars; go flat when it falls below the lowest low of the previous
 * `exit_lookback` bars.
 */
export const breakout: StrategyFamily = {
  family: "breakout",
  params: {
    lookback: { type: "int", min: 2, default: 20, doc: "bars whose highest high must be broken" },
    exit_lookback: {
      type: "int",
      min: 1,
      default: 10,
      doc: "bars whose lowest low ends the trade",
    },
  },
  check: (p) =>
    (p.exit_lookback as number) > (p.lookback as number)
      ? {
          param: "exit_lookback",
          message: `exit_lookback (${p.exit_lookback}) must not exceed lookback (${p.lookback})`,
        }
      : null,
  create: (p) => new Breakout(p.lookback as number, p.exit_lookback as number),
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

class Breakout implements Strategy {
  private readonly highs: Float64Array;
  private readonly lows: Float64Array;
  private count = 0;
  private pos = 0;
  constructor(
    private readonly lookback: number,
    private readonly exitLookback: number,
  ) {
    this.highs = new Float64Array(lookback);
    this.lows = new Float64Array(lookback);
  }
  onBar(close: number, high: number, low: number): number {
    const n = this.lookback;
    if (this.count >= n) {
      // Channels of the previous bars only: this bar's own high never triggers its breakout.
      let hi = -Infinity;
      for (let j = 0; j < n; j++) hi = Math.max(hi, this.highs[j]!);
      let lo = Infinity;
      for (let j = 1; j <= this.exitLookback; j++)
        lo = Math.min(lo, this.lows[(this.count - j) % n]!);
      if (this.pos === 0 && close > hi) this.pos = 1;
      else if (this.pos === 1 && close < lo) this.pos = 0;
    }
    this.highs[this.count % n] = high;
    this.lows[this.count % n] = low;
    this.count++;
    return this.pos;
  }
}
