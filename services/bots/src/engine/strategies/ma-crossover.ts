import type { Bars } from "../bars.js";
import type { Strategy, StrategyFamily } from "./strategy.js";

/** Long (or short, if allowed) while the fast simple moving average of closes is above (below) the slow one. */
export const maCrossover: StrategyFamily = {
  family: "ma_crossover",
  params: {
    fast: { type: "int", min: 1, default: 10, doc: "bars in the fast average" },
    slow: { type: "int", min: 2, default: 30, doc: "bars in the slow average; more than fast" },
    allow_short: { type: "boolean", default: false, doc: "go short when fast < slow" },
  },
  check: (p) =>
    (p.slow as number) <= (p.fast as number)
      ? { param: "slow", message: `slow (${p.slow}) must be greater than fast (${p.fast})` }
      : null,
  create: (p) => new MaCrossover(p.fast as number, p.slow as number, p.allow_short === true),
  targets(bars: Bars, p) {
    const fast = p.fast as number;
    const slow = p.slow as number;
    const short = p.allow_short === true ? -1 : 0;
    const prefix = new Float64Array(bars.length + 1);
    for (let i = 0; i < bars.length; i++) prefix[i + 1] = prefix[i]! + bars.close[i]!;
    const out = new Float64Array(bars.length);
    for (let i = slow - 1; i < bars.length; i++) {
      const f = (prefix[i + 1]! - prefix[i + 1 - fast]!) / fast;
      const s = (prefix[i + 1]! - prefix[i + 1 - slow]!) / slow;
      out[i] = f > s ? 1 : f < s ? short : 0;
    }
    return out;
  },
};

class MaCrossover implements Strategy {
  private readonly ring: Float64Array;
  private count = 0;
  private fastSum = 0;
  private slowSum = 0;
  constructor(
    private readonly fast: number,
    private readonly slow: number,
    allowShort: boolean,
    private readonly short = allowShort ? -1 : 0,
  ) {
    this.ring = new Float64Array(slow);
  }
  onBar(close: number): number {
    const slow = this.slow;
    const i = this.count % slow;
    if (this.count >= slow) this.slowSum -= this.ring[i]!;
    if (this.count >= this.fast) this.fastSum -= this.ring[(this.count - this.fast) % slow]!;
    this.ring[i] = close;
    this.slowSum += close;
    this.fastSum += close;
    this.count++;
    if (this.count < slow) return 0;
    // Sums drift with floating-point error over millions of bars: recompute now and then.
    if (this.count % 1_000_000 === 0) this.resum();
    const f = this.fastSum / this.fast;
    const s = this.slowSum / slow;
    return f > s ? 1 : f < s ? this.short : 0;
  }
  private resum(): void {
    let s = 0;
    let f = 0;
    for (let k = 0; k < this.slow; k++) {
      const v = this.ring[(this.count - 1 - k + this.slow * 2) % this.slow]!;
      s += v;
      if (k < this.fast) f += v;
    }
    this.slowSum = s;
    this.fastSum = f;
  }
}
