import type { Refusal } from "../pre-trade.js";
import type { OrderIntent } from "../sizing.js";
import { CONTROL } from "./controls.js";
import type { RiskLimits } from "./limits.js";
import { refuse } from "./refusal.js";
import type { RiskContext } from "./risk-context.js";
import { describedControl } from "@svc/lib/controls";
import { type RiskControlModule, EPS } from "./control-module.js";

/**
 * Price collar (RTS 6 Art. 15(1)(a)): an order priced further from the last reference price (the
 * previous bar's close) than the collar allows is refused. Without a reference yet (the first
 * bar) there is nothing to compare with, and the order passes.
 *
 * @example priceCollar(order, { ...ctx, price: 103, reference: 100 }, { ...limits, priceCollarPct: 2 }) // refused, value 3 (%)
 */
export function priceCollar(_order: OrderIntent, ctx: RiskContext, l: RiskLimits): Refusal | null {
  if (l.priceCollarPct <= 0 || !(ctx.reference > 0)) return null;
  const pct = (Math.abs(ctx.price - ctx.reference) / ctx.reference) * 100;
  if (pct <= l.priceCollarPct) return null;
  return refuse(
    CONTROL.priceCollar,
    l.priceCollarPct,
    pct,
    `price ${ctx.price} is ${pct.toFixed(4)} % from the reference ${ctx.reference}; the collar is ${l.priceCollarPct} %`,
  );
}

export const priceCollarControl: RiskControlModule = {
  ...describedControl(CONTROL.priceCollar),
  id: CONTROL.priceCollar,
  refuse: priceCollar,
  limitOf: (l) => (l.priceCollarPct > 0 ? l.priceCollarPct : undefined),
  only: (l) => ({ priceCollarPct: l.priceCollarPct }),
  breach: {
    what: "an order priced twice the collar away from the reference price",
    craft(b) {
      const away = 2 * (b.limits.priceCollarPct || 25);
      const price = b.price * (1 + away / 100);
      const v = b.open({ cash: b.cashFor(price) });
      v.pipeline.decide(1, price, b.t0, b.price);
      return v;
    },
  },
  stress: {
    witness(_order, ctx, l) {
      if (!(l.priceCollarPct > 0 && ctx.reference > 0)) return null;
      const pct = (Math.abs(ctx.price - ctx.reference) / ctx.reference) * 100;
      return pct > l.priceCollarPct + EPS
        ? `${pct} % from the reference, outside the collar ${l.priceCollarPct} %`
        : null;
    },
  },
};
