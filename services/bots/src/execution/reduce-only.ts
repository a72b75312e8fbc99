import { ACCEPT, type PreTradeCheck, type PreTradeContext } from "./pre-trade.js";
import type { OrderIntent } from "./sizing.js";

/** The check's name in order_rejected records. */
export const REDUCE_ONLY_CHECK = "reduce_only";

/**
 * Whether `order` only shrinks the position this decision leaves (a close, or a sell of part of
 * a long): it never adds exposure nor flips the side. Floating error in a close's units is
 * tolerated, never a real increase.
 *
 * @example onlyReduces({ side: "sell", units: 5, closes: false }, { position: 10, accepted: 0, ... }) // true
 */
export function onlyReduces(order: OrderIntent, context: PreTradeContext): boolean {
  const held = context.position + context.accepted;
  const signed = order.side === "buy" ? order.units : -order.units;
  return (
    held !== 0 &&
    Math.sign(signed) === -Math.sign(held) &&
    Math.abs(signed) <= Math.abs(held) * (1 + 1e-12)
  );
}

/**
 * Reduce-only while `reason()` names a reason (a lapsed license, say): orders that close or shrink
 * the position pass, so nothing is stranded open; orders adding exposure are refused with that
 * reason. When it names none, every order passes.
 */
export function reduceOnlyWhile(reason: () => string | undefined): PreTradeCheck {
  return {
    name: REDUCE_ONLY_CHECK,
    check(order, context) {
      const why = reason();
      if (why === undefined || onlyReduces(order, context)) return ACCEPT;
      return { accept: false, reason: `reduce-only: ${why}` };
    },
  };
}
