import { feeOf, slipped } from "../execution/costs.js";
import { ordersForTarget, type OrderIntent } from "../execution/sizing.js";
import type { Bars } from "./bars.js";
import type { EngineSettings } from "./settings.js";

const NONE: readonly OrderIntent[] = [];

/**
 * The same accounting over whole arrays, from a precomputed target array (the strategy
 * family's `targets`): the fast path for parameter sweeps, and a cross-check of the event-driven
 * engine that shares only the execution rules (sizing, dust, slippage and fees): the target of
 * bar t is sized at t's close and filled at t+1's open; an unchanged target sends nothing.
 */
export function vectorisedEquity(
  bars: Bars,
  targets: Float64Array,
  s: EngineSettings,
): { finalEquity: number; fees: number } {
  let cash = s.initialCash;
  let units = 0;
  let fees = 0;
  let held = NaN;
  let sent: readonly OrderIntent[] = NONE;
  const n = bars.length;
  for (let t = 0; t < n; t++) {
    if (sent.length > 0) {
      for (const order of sent) {
        const price = slipped(order.side, bars.open[t]!, s.slippageBps);
        const fee = feeOf(order.units, price, s.feeBps);
        const signed = order.side === "buy" ? order.units : -order.units;
        cash -= signed * price + fee;
        units += signed;
        fees += fee;
      }
      sent = NONE;
    }
    const want = targets[t]!;
    if (want === held) continue;
    held = want;
    const close = bars.close[t]!;
    sent = ordersForTarget(want, units, cash + units * close, close, s);
  }
  return { finalEquity: cash + units * bars.close[n - 1]!, fees };
}
