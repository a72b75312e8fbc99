import type { Refusal } from "../pre-trade.js";
import type { OrderIntent } from "../sizing.js";
import { CONTROL } from "./controls.js";
import type { RiskLimits } from "./limits.js";
import { refuse } from "./refusal.js";
import type { RiskContext } from "./risk-context.js";
import { describedControl } from "@svc/lib/controls";
import type { RiskControlModule } from "./control-module.js";

/**
 * Message-rate throttle (RTS 6 Art. 15(1)(d) maximum messages limits): the order would make more than the allowed number
 * of orders within the window that ends at the bar's time. Its refusal disables the bot (see
 * RiskGuard), as Art. 15(3) asks.
 *
 * @example messageThrottle(order, ctx, { ...limits, maxOrdersPerWindow: 2, throttleWindowMs: 60_000 })
 */
export function messageThrottle(
  _order: OrderIntent,
  ctx: RiskContext,
  l: RiskLimits,
): Refusal | null {
  if (l.maxOrdersPerWindow <= 0 || l.throttleWindowMs <= 0) return null;
  const { recent } = ctx;
  const from = ctx.time - l.throttleWindowMs;
  let count = 1;
  for (let i = recent.time.length - 1; i >= recent.start && recent.time[i]! > from; i--) count++;
  if (count <= l.maxOrdersPerWindow) return null;
  return refuse(
    CONTROL.messageThrottle,
    l.maxOrdersPerWindow,
    count,
    `${count} orders within ${l.throttleWindowMs / 1000} s; at most ${l.maxOrdersPerWindow} are allowed`,
  );
}

/**
 * Duplicate order detection: an order of the same side, size and price (within the tolerance) as
 * one sent within the window is taken for a repeat and refused.
 */
export function duplicateOrder(
  order: OrderIntent,
  ctx: RiskContext,
  l: RiskLimits,
): Refusal | null {
  if (l.duplicateWindowMs <= 0) return null;
  const { recent } = ctx;
  const from = ctx.time - l.duplicateWindowMs;
  const tol = l.duplicateTolerance;
  for (let i = recent.time.length - 1; i >= recent.start && recent.time[i]! > from; i--) {
    if (recent.side[i] !== order.side) continue;
    const units = recent.units[i]!;
    const price = recent.price[i]!;
    if (Math.abs(units - order.units) > tol * units) continue;
    if (Math.abs(price - ctx.price) > tol * price) continue;
    const ageS = (ctx.time - recent.time[i]!) / 1000;
    return refuse(
      CONTROL.duplicateOrder,
      l.duplicateWindowMs / 1000,
      ageS,
      `same side, size and price as an order ${ageS} s earlier (window ${l.duplicateWindowMs / 1000} s)`,
    );
  }
  return null;
}

export const duplicateOrderControl: RiskControlModule = {
  ...describedControl(CONTROL.duplicateOrder),
  id: CONTROL.duplicateOrder,
  refuse: duplicateOrder,
  limitOf: (l) => (l.duplicateWindowMs > 0 ? l.duplicateWindowMs / 1000 : undefined),
  only: (l) => ({ duplicateWindowMs: l.duplicateWindowMs }),
  breach: {
    what: "the same order sent again within the duplicate window",
    craft(b) {
      const v = b.open({ cash: b.cashFor(b.price) });
      v.pipeline.decide(1, b.price, b.t0, b.price);
      v.broker.cancelAll("conformance: resend");
      v.pipeline.decide(0, b.price, b.t0, b.price);
      const later = Math.min((b.limits.duplicateWindowMs || 2_000) / 2, 1_000);
      v.pipeline.decide(1, b.price, b.t0 + later, b.price);
      return v;
    },
  },
  stress: {
    overRun:
      "not re-judged order by order: the witness keeps no book of recent orders; a repeat the control refused shows in rejections_by_control",
  },
};

export const messageThrottleControl: RiskControlModule = {
  ...describedControl(CONTROL.messageThrottle),
  id: CONTROL.messageThrottle,
  refuse: messageThrottle,
  limitOf: (l) =>
    l.maxOrdersPerWindow > 0 && l.throttleWindowMs > 0 ? l.maxOrdersPerWindow : undefined,
  only: (l) => ({ maxOrdersPerWindow: l.maxOrdersPerWindow, throttleWindowMs: l.throttleWindowMs }),
  // Its case is a burst of its own (compliance/control-cases.ts): the breach also disables the bot.
  stress: {
    overRun:
      "the most orders accepted within any throttle window of the replay's clock, against max_orders_per_window, and no order accepted after a breach disabled the run",
  },
};
