import type { OrderIntent } from "../sizing.js";
import type { RiskContext } from "./risk-context.js";

/** The position this decision leaves before `order` (the orders of it already accepted count). */
export function heldBefore(ctx: RiskContext): number {
  return ctx.position + ctx.accepted;
}

/** The signed position after `order`. */
export function heldAfter(order: OrderIntent, ctx: RiskContext): number {
  return heldBefore(ctx) + (order.side === "buy" ? order.units : -order.units);
}

/** Whether `order` leaves less exposure than there was: a close or a cut never adds risk. */
export function reducesExposure(order: OrderIntent, ctx: RiskContext): boolean {
  return Math.abs(heldAfter(order, ctx)) < Math.abs(heldBefore(ctx)) * (1 + 1e-12);
}

/** The loss the run has made from the capital it started with (negative: a gain). */
export function lossOf(ctx: RiskContext): number {
  return ctx.startEquity - ctx.equity;
}
