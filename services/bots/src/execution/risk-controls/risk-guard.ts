import type { ExecutionEvent } from "../events.js";
import type { PreTradeCheck, PreTradeContext, PreTradeVerdict, Refusal } from "../pre-trade.js";
import { ACCEPT } from "../pre-trade.js";
import type { OrderIntent } from "../sizing.js";
import { CONTROL } from "./controls.js";
import type { RiskLimits } from "./limits.js";
import type { Control } from "./control-module.js";
import { RecentOrders } from "./recent-orders.js";
import { RISK_CONTROLS } from "./registry.js";
import type { FleetFigures, RiskContext } from "./risk-context.js";

/** The registry's checks, in the order they run (see RISK_CONTROLS). */
export const CONTROLS: readonly Control[] = RISK_CONTROLS.map((c) => c.refuse);

/** Why the bot is disabled: the throttle breach that did it. */
export interface DisabledBy {
  control: string;
  reason: string;
  limit: number;
  value: number;
}

const NO_FLEET: FleetFigures = { exposure: 0, loss: 0 };

export interface RiskGuardOptions {
  limits: RiskLimits;
  /** The capital the run started with: the credit threshold's zero. */
  startEquity: number;
  /** The rest of the fleet's figures, asked per order (a backtest has no fleet). */
  fleet?: () => FleetFigures;
  /** Where a throttle breach is recorded (risk_disabled), before the order's rejection. */
  emit?: (e: ExecutionEvent) => void;
  /** A bot a breach disabled earlier and no one re-enabled yet starts disabled. */
  disabled?: DisabledBy;
}

/**
 * The pre-trade risk controls as one check of the order path: it keeps the state the pure
 * controls read (recent orders, whether a throttle breach disabled the bot) and hands it to them
 * in the context. The first refusal stops the order. While disabled, every order is refused.
 */
export class RiskGuard implements PreTradeCheck {
  readonly name = "risk_controls";
  private readonly recent: RecentOrders;
  private disabledBy: DisabledBy | undefined;

  constructor(private readonly o: RiskGuardOptions) {
    const l = o.limits;
    this.recent = new RecentOrders(Math.max(l.throttleWindowMs, l.duplicateWindowMs));
    this.disabledBy = o.disabled;
  }

  get disabled(): DisabledBy | undefined {
    return this.disabledBy;
  }

  /** A named person re-enabled the bot: orders are judged again. */
  reEnable(): void {
    this.disabledBy = undefined;
  }

  check(order: OrderIntent, context: PreTradeContext): PreTradeVerdict {
    const by = this.disabledBy;
    if (by)
      return {
        accept: false,
        control: CONTROL.riskDisabled,
        limit: by.limit,
        value: by.value,
        reason: `bot disabled by ${by.control} until a person re-enables it: ${by.reason}`,
      };
    const ctx: RiskContext = {
      ...context,
      startEquity: this.o.startEquity,
      recent: this.recent,
      fleet: this.o.fleet ? this.o.fleet() : NO_FLEET,
    };
    const l = this.o.limits;
    for (let i = 0; i < CONTROLS.length; i++) {
      const refusal = CONTROLS[i]!(order, ctx, l);
      if (!refusal) continue;
      if (refusal.control === CONTROL.messageThrottle) this.disable(refusal);
      return refusal;
    }
    return ACCEPT;
  }

  accepted(order: OrderIntent, context: PreTradeContext): void {
    this.recent.add(context.time, order.side, order.units, context.price);
  }

  private disable(r: Refusal): void {
    const by: DisabledBy = {
      control: r.control!,
      reason: r.reason,
      limit: Number(r.limit),
      value: Number(r.value),
    };
    this.disabledBy = by;
    this.o.emit?.({ type: "risk_disabled", data: by });
  }
}
