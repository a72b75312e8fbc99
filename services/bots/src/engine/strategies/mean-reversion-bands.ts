import type { Bars } from "../bars.js";
import type { Strategy, StrategyFamily } from "./strategy.js";

/**
 * Bollinger-style mean reversion: buy when the close falls k standard deviations below its
 * moving mean, sell short (if allowed) k above, and go flat when the close crosses the mean.
 */
export const meanReversionBands: StrategyFamily = {
  family: "mean_reversion_bands",
  params: {
    window: { type: "int", min: 2, default: 20, doc: "bars in the mean and standard deviation" },
    k: { type: "number", min: 0.1, default: 2, doc: "band width in standard deviations" },
    allow_short: { type: "boolean", default: false, doc: "sell short above the upper band" },
  },
  check: () => null,
  create: (p) => new MeanReversion(p.window as number, p.k as number, p.allow_short === true),
  targets(bars: Bars, p) {
    const w = p.window as number;
    const k = p.k as number;
    const allowShort = p.allow_short === true;
    const out = new Float64Array(bars.length);
    let pos = 0;
    for (let i = 0; i < bars.length; i++) {
      if (i >= w - 1) {
        let sum = 0;
        for (let j = i - w + 1; j <= i; j++) sum += bars.close[j]!;
        const mean = sum / w;
        let ss = 0;
        for (let j = i - w + 1; j <= i; j++) ss += (bars.close[j]! - mean) ** 2;
        const sd = Math.sqrt(ss / w);
        pos = decide(pos, bars.close[i]!, mean, sd, k, allowShort);
      }
      out[i] = pos;
    }
    return out;
  },
};

function decide(
  pos: number,
  close: number,
  mean: number,
  sd: number,
  k: number,
  allowShort: boolean,
): number {
  if (pos > 0 && close >= mean) pos = 0;
  else if (pos < 0 && close <= mean) pos = 0;
  if (pos === 0) {
    if (close < mean - k * sd) pos = 1;
    else if (allowShort && close > mean + k * sd) pos = -1;
  }
  return pos;
}

class MeanReversion implements Strategy {
  private readonly ring: Float64Array;
  private count = 0;
  private pos = 0;
  constructor(
    private readonly window: number,
    private readonly k: number,
    private readonly allowShort: boolean,
  ) {
    this.ring = new Float64Array(window);
  }
  onBar(close: number): number {
    const w = this.window;
    // count % w, the oldest slot once the ring is full: the sums run oldest to newest.
    const at = this.count % w;
    this.ring[at] = close;
    this.count++;
    if (this.count < w) return 0;
    const start = at + 1 === w ? 0 : at + 1;
    // Two passes over the window keep the variance exact enough to match the vectorised path.
    let sum = 0;
    for (let j = 0, i = start; j < w; j++, i = i + 1 === w ? 0 : i + 1) sum += this.ring[i]!;
    const mean = sum / w;
    let ss = 0;
    for (let j = 0, i = start; j < w; j++, i = i + 1 === w ? 0 : i + 1)
      ss += (this.ring[i]! - mean) ** 2;
    this.pos = decide(this.pos, close, mean, Math.sqrt(ss / w), this.k, this.allowShort);
    return this.pos;
  }
}
