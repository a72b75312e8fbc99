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
  /** The time of the bar the decision is taken at (ms): the clock of every time-window control. */
  time: number;
  /** The last reference price before this bar (its predecessor's close); NaN on the first bar. */
  reference: number;
}

/**
 * A check's answer: the order goes on, or it is refused with a reason a person can read. A check
 * standing for several controls names the one that refused, with its limit and the value seen.
 */
export type PreTradeVerdict = { accept: true } | Refusal;

export interface Refusal {
  accept: false;
  reason: string;
  control?: string;
  limit?: number | string;
  value?: number | string;
}

/**
 * One pre-trade control (position limit, notional cap, restricted symbol...): the compliance
 * risk controls plug in here. Checks run in list order; the first refusal stops the order.
 */
export interface PreTradeCheck {
  /** Named in the order_rejected record. */
  readonly name: string;
  check(order: OrderIntent, context: PreTradeContext): PreTradeVerdict;
  /** Told of every order the whole list accepted (a check that remembers recent orders). */
  accepted?(order: OrderIntent, context: PreTradeContext): void;
}

/** What an order_rejected record says of the refusal. */
export interface RefusalRecord {
  check: string;
  reason: string;
  limit?: number | string;
  value?: number | string;
}

export const ACCEPT: PreTradeVerdict = { accept: true };

/** The first refusal of `checks` for `order`, or null when every check accepts it. */
export function firstRefusal(
  checks: readonly PreTradeCheck[],
  order: OrderIntent,
  context: PreTradeContext,
): RefusalRecord | null {
  for (const c of checks) {
    const verdict = c.check(order, context);
    if (verdict.accept) continue;
    const record: RefusalRecord = { check: verdict.control ?? c.name, reason: verdict.reason };
    if (verdict.limit !== undefined) record.limit = verdict.limit;
    if (verdict.value !== undefined) record.value = verdict.value;
    return record;
  }
  return null;
}

/** Tells every check of the list that `order` was accepted. */
export function noteAccepted(
  checks: readonly PreTradeCheck[],
  order: OrderIntent,
  context: PreTradeContext,
): void {
  for (const c of checks) c.accepted?.(order, context);
}
