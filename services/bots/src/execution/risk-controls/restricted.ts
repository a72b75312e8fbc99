import type { Refusal } from "../pre-trade.js";
import type { OrderIntent } from "../sizing.js";
import { CONTROL } from "./controls.js";
import { reducesExposure } from "./exposure.js";
import type { RiskLimits } from "./limits.js";
import { refuse } from "./refusal.js";
import type { RiskContext } from "./risk-context.js";
import { describedControl } from "@svc/lib/controls";
import type { RiskControlModule } from "./control-module.js";

/**
 * Restricted instruments (15c3-5 (c)(2)(ii)): no order adds exposure in a listed symbol. An
 * order that reduces a position held from before the listing still passes, so it can be unwound.
 */
export function restrictedInstrument(
  order: OrderIntent,
  ctx: RiskContext,
  l: RiskLimits,
): Refusal | null {
  if (l.restricted.size === 0 || !l.restricted.has(ctx.symbol) || reducesExposure(order, ctx))
    return null;
  return refuse(
    CONTROL.restrictedInstrument,
    [...l.restricted].join(","),
    ctx.symbol,
    `${ctx.symbol} is a restricted instrument`,
  );
}

export const restrictedInstrumentControl: RiskControlModule = {
  ...describedControl(CONTROL.restrictedInstrument),
  id: CONTROL.restrictedInstrument,
  refuse: restrictedInstrument,
  limitOf: (l) => (l.restricted.size > 0 ? [...l.restricted].join(",") : undefined),
  only: (l) => ({ restricted: l.restricted }),
  breach: {
    what: "an order in a restricted instrument",
    craft(b) {
      const symbol = [...b.limits.restricted][0] ?? "RESTRICTED-TEST";
      const v = b.open({ cash: b.cashFor(b.price), symbol });
      v.pipeline.decide(1, b.price, b.t0, b.price);
      return v;
    },
  },
  stress: {
    witness: (order, ctx, l) =>
      l.restricted.has(ctx.symbol) && !order.closes
        ? `adding exposure in restricted ${ctx.symbol}`
        : null,
  },
};
