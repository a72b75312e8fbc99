import type { Bars } from "./bars.js";
import type { EngineSettings } from "./settings.js";

/**
 * The same accounting over whole arrays, from a precomputed target array (the strategy
 * family's `targets`): position held during bar t is the target of bar t-1, changed at t's
 * open. An independent computation to cross-check the event-driven engine, and the fast path for
 * parameter sweeps.
 */
export function vectorisedEquity(
  bars: Bars,
  targets: Float64Array,
  s: EngineSettings,
): { finalEquity: number; fees: number } {
  const slip = s.slippageBps / 10_000;
  const feeRate = s.feeBps / 10_000;
  let cash = s.initialCash;
  let units = 0;
  let fees = 0;
  let held = 0;
  const n = bars.length;
  for (let t = 1; t < n; t++) {
    const want = targets[t - 1]!;
    if (want === held) continue;
    const o = bars.open[t]!;
    const trade = (delta: number) => {
      const px = delta > 0 ? o * (1 + slip) : o * (1 - slip);
      const fee = Math.abs(delta) * px * feeRate;
      cash -= delta * px + fee;
      fees += fee;
      units += delta;
    };
    if (units !== 0 && (want === 0 || Math.sign(want) !== Math.sign(units))) trade(-units);
    if (want !== 0) trade((want * s.positionSize * (cash + units * o)) / o - units);
    held = want;
  }
  return { finalEquity: cash + units * bars.close[n - 1]!, fees };
}
