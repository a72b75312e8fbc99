import type { OrderIntent } from "./sizing.js";

/** What a pre-trade check sees of the book when an order is about to be sent. */
export interface PreTradeContext {
  symbol: string;
  /** The close the order was sized at. */
  price: number;
  equity: number;
  cash: number;
  /** The position before this decision's orders fill. */
  position: number;
  /** Signed units of the orders of this decision already accepted (a flip's close, say). */
  accepted: number;
}

/** A check's answer: the order goes on, or it is refused with a reason a person can read. */
export type PreTradeVerdict = { accept: true } | { accept: false; reason: string };

/**
 * One pre-trade control (position limit, notional cap, restricted symbol...): the compliance
 * risk controls plug in here. Checks run in list order; the first refusal stops the order.
 */
export interface PreTradeCheck {
  /** Named in the order_rejected record. */
  readonly name: string;
  check(order: OrderIntent, context: PreTradeContext): PreTradeVerdict;
}

export const ACCEPT: PreTradeVerdict = { accept: true };

/** The first refusal of `checks` for `order`, or null when every check accepts it. */
export function firstRefusal(
  checks: readonly PreTradeCheck[],
  order: OrderIntent,
  context: PreTradeContext,
): { check: string; reason: string } | null {
  for (const c of checks) {
    const verdict = c.check(order, context);
    if (!verdict.accept) return { check: c.name, reason: verdict.reason };
  }
  return null;
}
