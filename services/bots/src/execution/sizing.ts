import type { Side } from "./events.js";

/** A re-sizing worth less than this fraction of equity is churn, not a decision: it is not sent. */
export const DUST_FRACTION = 1e-3;

/** An order the sizing rule asks for, before the pre-trade checks and the broker see it. */
export interface OrderIntent {
  side: Side;
  units: number;
  /** Brings the position to zero: never dust, and a check can tell it from an order adding risk. */
  closes: boolean;
}

/** What the sizing rule needs from the settings of a run (engine.position_size of the BotSpec). */
export interface Sizing {
  /** Fraction of equity a full (target 1) position takes. */
  positionSize: number;
}

/**
 * The one sizing rule of backtests, paper sessions and stress runs: the orders that move
 * `position` to the strategy's `target` (a fraction of equity in [-1, 1], times positionSize),
 * valued at `price`, the close the decision is taken at (the fill comes at the next open, so the
 * quantity cannot know it). A flip closes the old position first, so each round trip stands on
 * its own and a check may let the close through yet refuse the new position. An order under
 * DUST_FRACTION of equity is not sent; a close always is.
 *
 * @example ordersForTarget(1, 0, 1000, 100, { positionSize: 0.5 }) // [{ side: "buy", units: 5, closes: false }]
 */
export function ordersForTarget(
  target: number,
  position: number,
  equity: number,
  price: number,
  sizing: Sizing,
): OrderIntent[] {
  const orders: OrderIntent[] = [];
  let from = position;
  if (position !== 0 && (target === 0 || Math.sign(target) !== Math.sign(position))) {
    orders.push({ side: position > 0 ? "sell" : "buy", units: Math.abs(position), closes: true });
    from = 0;
  }
  if (target !== 0) {
    const delta = (target * sizing.positionSize * equity) / price - from;
    if (!isDust(delta, price, equity))
      orders.push({ side: delta > 0 ? "buy" : "sell", units: Math.abs(delta), closes: false });
  }
  return orders;
}

/** The dust rule: `units` at `price` is too small a change of a book worth `equity` to trade. */
export function isDust(units: number, price: number, equity: number): boolean {
  return Math.abs(units) * price < Math.max(1e-9, Math.abs(equity) * DUST_FRACTION);
}
