import type { Refusal } from "../pre-trade.js";
import type { OrderIntent } from "../sizing.js";
import { CONTROL } from "./controls.js";
import type { RiskLimits } from "./limits.js";
import { refuse } from "./refusal.js";
import type { RiskContext } from "./risk-context.js";

/**
 * Maximum order volume (15c3-5 (c)(1)(ii), RTS 6 Art. 15(1)(c)): an order larger than the limit
 * is erroneous whatever it does to the position.
 *
 * @example maxOrderUnits({ side: "buy", units: 12, closes: false }, ctx, { ...limits, maxOrderUnits: 10 }) // refused, value 12
 */
export function maxOrderUnits(
  order: OrderIntent,
  _ctx: RiskContext,
  l: RiskLimits,
): Refusal | null {
  if (l.maxOrderUnits <= 0 || order.units <= l.maxOrderUnits) return null;
  return refuse(
    CONTROL.maxOrderUnits,
    l.maxOrderUnits,
    order.units,
    `order of ${order.units} units is over the maximum of ${l.maxOrderUnits}`,
  );
}

/** Maximum order value (RTS 6 Art. 15(1)(b); notional: units times the price the order was sized at). */
export function maxOrderNotional(
  order: OrderIntent,
  ctx: RiskContext,
  l: RiskLimits,
): Refusal | null {
  if (l.maxOrderNotional <= 0) return null;
  const notional = order.units * ctx.price;
  if (notional <= l.maxOrderNotional) return null;
  return refuse(
    CONTROL.maxOrderNotional,
    l.maxOrderNotional,
    notional,
    `order value ${notional} is over the maximum of ${l.maxOrderNotional}`,
  );
}
