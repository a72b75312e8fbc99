// The built-in mean_reversion_bands family, an SDK strategy like any uploaded one (Bollinger-style
// mean reversion): buy when the close falls k standard deviations below its moving mean, sell
// short (if allowed) k above, and go flat when the close crosses the mean. The window's mean and
// deviation take two passes over it, oldest first: the arithmetic of trading-signals'
// getAverage and getStandardDeviation to the bit, without the two arrays and the callbacks
// those make each bar (four times as slow, and this family has no vectorised path).
import { defineStrategy, param } from "@svc/strategy-sdk";

interface Window {
  /** The last `window` closes, oldest first. */
  closes: number[];
  pos: number;
  /** The weight last targeted, once `targeted`: a target stands until changed. */
  weight: number;
  targeted: boolean;
}

export default defineStrategy({
  params: {
    window: param.int({
      default: 20,
      min: 2,
      description: "bars in the mean and standard deviation",
    }),
    k: param.number({ default: 2, min: 0.1, description: "band width in standard deviations" }),
    allow_short: param.boolean({
      default: false,
      description: "sell short above the upper band",
    }),
  },
  init(ctx) {
    if (Array.isArray(ctx.state.closes)) return;
    const w: Window = { closes: [], pos: 0, weight: 0, targeted: false };
    ctx.state = w as unknown as typeof ctx.state;
  },
  onBar(ctx) {
    const { window, k, allow_short } = ctx.params;
    const symbol = ctx.symbols[0]!;
    const close = ctx.bars(symbol).value("close");
    const s = ctx.state as unknown as Window;
    const closes = s.closes;
    closes.push(close);
    if (closes.length > window) closes.shift();
    if (closes.length === window) {
      let sum = 0;
      for (let j = 0; j < window; j++) sum += closes[j]!;
      const mean = sum / window;
      let squares = 0;
      for (let j = 0; j < window; j++) {
        const d = closes[j]! - mean;
        squares += d * d;
      }
      const sd = Math.sqrt(squares / window);
      let pos = s.pos;
      if (pos > 0 && close >= mean) pos = 0;
      else if (pos < 0 && close <= mean) pos = 0;
      if (pos === 0) {
        if (close < mean - k * sd) pos = 1;
        else if (allow_short && close > mean + k * sd) pos = -1;
      }
      s.pos = pos;
    }
    if (s.pos !== s.weight || !s.targeted) {
      s.weight = s.pos;
      s.targeted = true;
      ctx.target(symbol, { weight: s.pos });
    }
  },
});
