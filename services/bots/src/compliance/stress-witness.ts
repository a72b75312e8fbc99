import { ACCEPT, type PreTradeCheck, type PreTradeContext } from "../execution/pre-trade.js";
import {
  RISK_CONTROLS,
  type RiskLimits,
  type WitnessContext,
} from "../execution/risk-controls/index.js";
import type { OrderIntent } from "../execution/sizing.js";

/** The registry's per-order stress checks (a control judged over the run has none here). */
const WITNESSES = RISK_CONTROLS.flatMap((c) => ("witness" in c.stress ? [c.stress.witness] : []));

/**
 * Two checks that refuse nothing and judge the risk controls from outside: `counter` (first in
 * the list) counts every order that entered the order path, and when (the replay's clock, for
 * the rate it reached); `witness` (last) sees every order the
 * whole list accepted and records each limit it breaks, by each registry control's stress check
 * (written apart from the control, so a control that lets an order through is caught, not
 * trusted).
 */
export class StressWitness {
  sent = 0;
  accepted = 0;
  readonly violations: string[] = [];
  private readonly acceptedAt: number[] = [];
  private readonly sentAt: number[] = [];
  private disabledSince = -1;

  constructor(
    private readonly l: RiskLimits,
    /** The capital the replay started with (the credit thresholds' zero). */
    private readonly startEquity: number,
  ) {}

  readonly counter: PreTradeCheck = {
    name: "stress_counter",
    check: (_order, ctx) => {
      this.sent++;
      this.sentAt.push(ctx.time);
      return ACCEPT;
    },
  };

  readonly witness: PreTradeCheck = {
    name: "stress_witness",
    check: () => ACCEPT,
    accepted: (order, ctx) => this.judge(order, ctx),
  };

  /** The risk controls disabled the run (a throttle breach): nothing may pass from here on. */
  noteDisabled(): void {
    if (this.disabledSince < 0) this.disabledSince = this.accepted;
  }

  /** The most accepted orders within any one throttle window. */
  maxAcceptedInWindow(): number {
    return mostWithin(this.acceptedAt, this.l.throttleWindowMs);
  }

  /** The most orders that entered the order path within any `windowMs` of the replay's clock. */
  maxSentWithin(windowMs: number): number {
    return mostWithin(this.sentAt, windowMs);
  }

  private judge(order: OrderIntent, ctx: PreTradeContext): void {
    this.accepted++;
    this.acceptedAt.push(ctx.time);
    const l = this.l;
    const breaks = (what: string) => {
      if (this.violations.length < 20) this.violations.push(`order ${this.sent} accepted ${what}`);
    };
    if (this.disabledSince >= 0) breaks("after the throttle disabled the run");
    const seen: WitnessContext = { ...ctx, startEquity: this.startEquity };
    for (const witness of WITNESSES) {
      const broken = witness(order, seen, l);
      if (broken !== null) breaks(broken);
    }
  }
}

/** The most of `times` (ascending) within any window (t - w, t]; the controls' own window. */
function mostWithin(times: readonly number[], w: number): number {
  if (w <= 0) return 0;
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[j]! <= times[i]! - w) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}
