// The built-in breakout family, an SDK strategy like any uploaded one (a Donchian breakout, for
// momentum): go long when the close breaks above the highest high of the previous `lookback`
// bars; go flat when it falls below the lowest low of the previous `exit_lookback` bars. The
// channels are trading-signals' maximum and minimum of windows kept in ctx.state, read before
// this bar joins them: its own high never triggers its breakout.
import { defineStrategy, getMaximum, getMinimum, param } from "@svc/strategy-sdk";

interface Channels {
  /** The previous `lookback` highs and `exit_lookback` lows, oldest first. */
  highs: number[];
  lows: number[];
  pos: number;
  /** The weight last targeted, once `targeted`: a target stands until changed. */
  weight: number;
  targeted: boolean;
}

export default defineStrategy({
  params: {
    lookback: param.int({
      default: 20,
      min: 2,
      description: "bars whose highest high must be broken",
    }),
    exit_lookback: param.int({
      default: 10,
      min: 1,
      description: "bars whose lowest low ends the trade",
    }),
  },
  init(ctx) {
    if (Array.isArray(ctx.state.highs)) return;
    const c: Channels = { highs: [], lows: [], pos: 0, weight: 0, targeted: false };
    ctx.state = c as unknown as typeof ctx.state;
  },
  onBar(ctx) {
    const { lookback, exit_lookback } = ctx.params;
    const symbol = ctx.symbols[0]!;
    const bars = ctx.bars(symbol);
    const s = ctx.state as unknown as Channels;
    const { highs, lows } = s;
    if (highs.length === lookback) {
      const close = bars.value("close");
      if (s.pos === 0 && close > getMaximum(highs)) s.pos = 1;
      else if (s.pos === 1 && close < getMinimum(lows)) s.pos = 0;
    }
    highs.push(bars.value("high"));
    if (highs.length > lookback) highs.shift();
    lows.push(bars.value("low"));
    if (lows.length > exit_lookback) lows.shift();
    if (s.pos !== s.weight || !s.targeted) {
      s.weight = s.pos;
      s.targeted = true;
      ctx.target(symbol, { weight: s.pos });
    }
  },
});
