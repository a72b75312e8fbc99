import {
  ACCEPT,
  type PreTradeCheck,
  type PreTradeContext,
  type PreTradeVerdict,
} from "../../execution/pre-trade.js";
import { CONTROL } from "../../execution/risk-controls/controls.js";
import type { OrderIntent } from "../../execution/sizing.js";
import type { Sleeve } from "./sleeve.js";

/**
 * The bot's capital threshold over a portfolio: the gross value of every position after the
 * order (the others at their last close, their working orders counted as filled), as the
 * fleet's threshold sums the fleet's. An order
 * that reduces its symbol's exposure always passes: a threshold must never strand a position.
 */
export class PortfolioCapital implements PreTradeCheck {
  readonly name = CONTROL.capitalThreshold;

  constructor(
    private readonly limit: number,
    private readonly sleeves: readonly Sleeve[],
  ) {}

  check(order: OrderIntent, ctx: PreTradeContext): PreTradeVerdict {
    const before = ctx.position + ctx.accepted;
    const after = before + (order.side === "buy" ? order.units : -order.units);
    if (Math.abs(after) < Math.abs(before) * (1 + 1e-12)) return ACCEPT;
    let others = 0;
    // The other symbols' orders sent at this close count as if filled: they fill at the same open.
    for (const s of this.sleeves)
      if (s.symbol !== ctx.symbol) {
        const u = s.unitsAfterWorking();
        if (u !== 0) others += Math.abs(u) * s.lastClose;
      }
    const exposure = others + Math.abs(after) * ctx.price;
    if (exposure <= this.limit) return ACCEPT;
    return {
      accept: false,
      control: CONTROL.capitalThreshold,
      limit: this.limit,
      value: exposure,
      reason: `portfolio position value ${exposure} after the order is over the bot's capital threshold ${this.limit}`,
    };
  }
}
