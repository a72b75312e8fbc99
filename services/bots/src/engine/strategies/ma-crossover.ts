import type { Bars } from "../bars.js";
import { declaredParams, InProcessStrategy } from "./in-process.js";
import definition from "./sdk/ma-crossover.strategy.js";
import {
  TARGET_BLOCK,
  type AnyStrategyDefinition,
  type StrategyFamily,
  type TargetSource,
} from "./strategy.js";

/** Bars between recomputations of the running sums (as the SDK strategy, ./sdk/ma-crossover.strategy.ts). */
const RESUM_EVERY = 1_000_000;
/** A bar where the recomputation runs without recomputing anything, so that it is seen early. */
const FIRST_LOOK = 64;
/**
 * MaColumns' bar where the recomputation first runs, keeping nothing: in the second block, as by
 * then `fill` has run long enough for V8 to record what its operations saw (it records nothing in
 * a function's first calls).
 */
const COLUMNS_FIRST_LOOK = TARGET_BLOCK + FIRST_LOOK;

/**
 * Long (or short, if allowed) while the fast simple moving average of closes is above (below) the
 * slow one. The strategy is ./sdk/ma-crossover.strategy.ts; `columns` is its vectorised twin.
 */
export const maCrossover: StrategyFamily = {
  family: "ma_crossover",
  definition: definition as AnyStrategyDefinition,
  params: declaredParams(definition as AnyStrategyDefinition),
  check: (p) =>
    (p.slow as number) <= (p.fast as number)
      ? { param: "slow", message: `slow (${p.slow}) must be greater than fast (${p.fast})` }
      : null,
  create: (p) => new InProcessStrategy(definition as AnyStrategyDefinition, p),
  columns: (p) => new MaColumns(p.fast as number, p.slow as number, p.allow_short === true),
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

/**
 * The SDK strategy over columns: the same sums, changed by the same operations in the same order, so
 * the same targets to the last bit. The closes of a block sit behind the `slow` closes before it
 * in one array, so the bar leaving each average is read at a fixed offset (no ring, no branch);
 * before the first bar those are zeros, and subtracting zero leaves a sum as it was.
 */
class MaColumns implements TargetSource {
  private history: Float64Array;
  private count = 0;
  /** The next count at which the sums are recomputed (a multiple of RESUM_EVERY after the first look). */
  private nextResum = COLUMNS_FIRST_LOOK;
  private fastSum = 0;
  private slowSum = 0;
  private readonly short: number;
  constructor(
    private readonly fast: number,
    private readonly slow: number,
    allowShort: boolean,
  ) {
    this.short = allowShort ? -1 : 0;
    // Sized for the engine's blocks now: grown inside `fill`, at a run's first call, the growth
    // ran before the JIT recorded any types there, and a long-running process's next run,
    // growing its own history inside the compiled `fill`, threw that code away (twice as slow).
    this.history = new Float64Array(slow + TARGET_BLOCK);
  }
  fill(b: Bars, from: number, to: number, out: Float64Array): void {
    const { fast, slow, short } = this;
    const n = to - from;
    if (this.history.length < slow + n) {
      const grown = new Float64Array(slow + n);
      grown.set(this.history.subarray(0, slow));
      this.history = grown;
    }
    const h = this.history;
    h.set(b.close.subarray(from, to), slow);
    let fastSum = this.fastSum;
    let slowSum = this.slowSum;
    let count = this.count;
    let nextResum = this.nextResum;
    const lag = slow - fast;
    // Bars come in stretches with no branch in their loop but the comparison's: between two
    // bars that need more (the bar that recomputes the sums, the first bar with `slow` closes
    // in), every bar is either still filling the window (target 0) or compares the averages.
    // Those bars go one at a time. Testing both for every bar cost as much as the arithmetic.
    let j = 0;
    while (j < n) {
      const filling = count + 1 < slow;
      // Both bounds worked out every time, so that V8 has seen the arithmetic of the one that
      // is used only in a run's first block.
      const filled = j + (slow - count - 1);
      const end = Math.min(n, j + (nextResum - count - 1), filling ? filled : n);
      count += end - j;
      // One loop for both kinds of stretch (the test of `filling` is the same every bar): a loop
      // of its own for the bars filling the window would run only in a run's first call, before
      // V8 records anything, and be thrown away when the next run reaches it compiled.
      for (; j < end; j++) {
        const c = h[slow + j]!;
        slowSum -= h[j]!;
        fastSum -= h[lag + j]!;
        slowSum += c;
        fastSum += c;
        const f = fastSum / fast;
        const s = slowSum / slow;
        out[j] = filling ? 0 : f > s ? 1 : f < s ? short : 0;
      }
      if (j === n) break;
      const c = h[slow + j]!;
      slowSum -= h[j]!;
      fastSum -= h[lag + j]!;
      slowSum += c;
      fastSum += c;
      count++;
      if (count === nextResum) {
        // As the SDK strategy's recomputation: first at COLUMNS_FIRST_LOOK, where every operation runs over one
        // term and nothing is kept, so the compiled loop has seen this branch before the millionth
        // bar.
        const due = count % RESUM_EVERY === 0;
        const full = count >= slow;
        const keep = due && full;
        nextResum = (Math.floor(count / RESUM_EVERY) + 1) * RESUM_EVERY;
        const terms = keep ? slow : 1;
        let s = 0;
        let f = 0;
        for (let k = 0; k < terms; k++) {
          const v = h[slow + j - k]!;
          s += v;
          if (k < fast) f += v;
        }
        slowSum = keep ? s : slowSum;
        fastSum = keep ? f : fastSum;
      }
      const f = fastSum / fast;
      const s = slowSum / slow;
      out[j] = count < slow ? 0 : f > s ? 1 : f < s ? short : 0;
      j++;
    }
    h.copyWithin(0, n, n + slow);
    this.fastSum = fastSum;
    this.slowSum = slowSum;
    this.count = count;
    this.nextResum = nextResum;
  }
}
