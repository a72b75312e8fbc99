import type { Bars } from "../bars.js";
import { declaredParams, InProcessStrategy } from "./in-process.js";
import definition from "./sdk/mean-reversion-bands.strategy.js";
import type { AnyStrategyDefinition, StrategyFamily } from "./strategy.js";

/**
 * Bollinger-style mean reversion: buy when the close falls k standard deviations below its
 * moving mean, sell short (if allowed) k above, and go flat when the close crosses the mean.
 * The strategy is ./sdk/mean-reversion-bands.strategy.ts; `targets` is the tests' cross-check.
 */
export const meanReversionBands: StrategyFamily = {
  family: "mean_reversion_bands",
  definition: definition as AnyStrategyDefinition,
  params: declaredParams(definition as AnyStrategyDefinition),
  check: () => null,
  create: (p) => new InProcessStrategy(definition as AnyStrategyDefinition, p),
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
