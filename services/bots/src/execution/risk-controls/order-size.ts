import type { Refusal } from "../pre-trade.js";
import type { OrderIntent } from "../sizing.js";
import { CONTROL } from "./controls.js";
import type { RiskLimits } from "./limits.js";
import { refuse } from "./refusal.js";
import type { RiskContext } from "./risk-context.js";
import { describedControl } from "@svc/lib/controls";
import { EPS, type RiskControlModule } from "./control-module.js";

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

const positive = (x: number) => (x > 0 ? x : undefined);

export const maxOrderUnitsControl: RiskControlModule = {
  ...describedControl(CONTROL.maxOrderUnits),
  id: CONTROL.maxOrderUnits,
  refuse: maxOrderUnits,
  limitOf: (l) => positive(l.maxOrderUnits),
  only: (l) => ({ maxOrderUnits: l.maxOrderUnits }),
  breach: {
    what: "an order of twice the maximum volume",
    craft(b) {
      const units = 2 * (b.limits.maxOrderUnits || 1_000_000);
      const v = b.open({ cash: b.cashFor(units * b.price) });
      v.pipeline.decide(1, b.price, b.t0, b.price);
      return v;
    },
  },
  stress: {
    witness: (order, _ctx, l) =>
      l.maxOrderUnits > 0 && order.units > l.maxOrderUnits + EPS
        ? `with ${order.units} units over max_order_units ${l.maxOrderUnits}`
        : null,
  },
};

export const maxOrderNotionalControl: RiskControlModule = {
  ...describedControl(CONTROL.maxOrderNotional),
  id: CONTROL.maxOrderNotional,
  refuse: maxOrderNotional,
  limitOf: (l) => positive(l.maxOrderNotional),
  only: (l) => ({ maxOrderNotional: l.maxOrderNotional }),
  breach: {
    what: "an order of twice the maximum value",
    craft(b) {
      const units = (2 * (b.limits.maxOrderNotional || 1e9)) / b.price;
      const v = b.open({ cash: b.cashFor(units * b.price) });
      v.pipeline.decide(1, b.price, b.t0, b.price);
      return v;
    },
  },
  stress: {
    witness: (order, ctx, l) =>
      l.maxOrderNotional > 0 && order.units * ctx.price > l.maxOrderNotional * (1 + EPS)
        ? `worth ${order.units * ctx.price} over max_order_notional ${l.maxOrderNotional}`
        : null,
  },
};
