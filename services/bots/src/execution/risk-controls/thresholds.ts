import type { Refusal } from "../pre-trade.js";
import type { OrderIntent } from "../sizing.js";
import { CONTROL } from "./controls.js";
import { heldAfter, lossOf, reducesExposure } from "./exposure.js";
import type { RiskLimits } from "./limits.js";
import { refuse } from "./refusal.js";
import type { RiskContext } from "./risk-context.js";
import { describedControl } from "@svc/lib/controls";
import {
  EPS,
  type BreachBench,
  type BreachVenue,
  type RiskControlModule,
  type WitnessContext,
} from "./control-module.js";
import type { FleetFigures } from "./risk-context.js";
import type { PreTradeContext } from "../pre-trade.js";

// Credit and capital thresholds (15c3-5 (c)(1)(i)). An order that reduces exposure always passes:
// a threshold stops risk being added, it must never strand a position open.

/** Capital threshold of the bot: the gross position value after the order. */
export function capitalThreshold(
  order: OrderIntent,
  ctx: RiskContext,
  l: RiskLimits,
): Refusal | null {
  if (l.capitalLimit <= 0 || reducesExposure(order, ctx)) return null;
  const exposure = Math.abs(heldAfter(order, ctx)) * ctx.price;
  if (exposure <= l.capitalLimit) return null;
  return refuse(
    CONTROL.capitalThreshold,
    l.capitalLimit,
    exposure,
    `position value ${exposure} after the order is over the bot's capital threshold ${l.capitalLimit}`,
  );
}

/** Credit threshold of the bot: the loss it has run from its starting capital. */
export function creditThreshold(
  order: OrderIntent,
  ctx: RiskContext,
  l: RiskLimits,
): Refusal | null {
  if (l.creditLimit <= 0 || reducesExposure(order, ctx)) return null;
  const loss = lossOf(ctx);
  if (loss <= l.creditLimit) return null;
  return refuse(
    CONTROL.creditThreshold,
    l.creditLimit,
    loss,
    `loss ${loss} is over the bot's credit threshold ${l.creditLimit}; only closing orders pass`,
  );
}

/** Capital threshold of the fleet: the bot's position value after the order plus the others'. */
export function fleetCapitalThreshold(
  order: OrderIntent,
  ctx: RiskContext,
  l: RiskLimits,
): Refusal | null {
  if (l.fleetCapitalLimit <= 0 || reducesExposure(order, ctx)) return null;
  const exposure = ctx.fleet.exposure + Math.abs(heldAfter(order, ctx)) * ctx.price;
  if (exposure <= l.fleetCapitalLimit) return null;
  return refuse(
    CONTROL.fleetCapitalThreshold,
    l.fleetCapitalLimit,
    exposure,
    `fleet position value ${exposure} after the order is over the fleet's capital threshold ${l.fleetCapitalLimit}`,
  );
}

/** Credit threshold of the fleet: the loss of the bot and of the rest of its fleet together. */
export function fleetCreditThreshold(
  order: OrderIntent,
  ctx: RiskContext,
  l: RiskLimits,
): Refusal | null {
  if (l.fleetCreditLimit <= 0 || reducesExposure(order, ctx)) return null;
  const loss = ctx.fleet.loss + lossOf(ctx);
  if (loss <= l.fleetCreditLimit) return null;
  return refuse(
    CONTROL.fleetCreditThreshold,
    l.fleetCreditLimit,
    loss,
    `fleet loss ${loss} is over the fleet's credit threshold ${l.fleetCreditLimit}; only closing orders pass`,
  );
}

const positive = (x: number) => (x > 0 ? x : undefined);

/**
 * The position an accepted order leaves and whether it added exposure, worked out again for the
 * stress witness (not with the controls' helpers, so a mistake there is not repeated here).
 */
function witnessed(order: OrderIntent, ctx: PreTradeContext): { after: number; adds: boolean } {
  const before = ctx.position + ctx.accepted;
  const after = before + (order.side === "buy" ? order.units : -order.units);
  return { after, adds: Math.abs(after) >= Math.abs(before) * (1 + 1e-12) };
}

function overCapital(order: OrderIntent, ctx: WitnessContext, limit: number, what: string) {
  if (limit <= 0) return null;
  const { after, adds } = witnessed(order, ctx);
  const worth = Math.abs(after) * ctx.price;
  return adds && worth > limit * (1 + EPS)
    ? `leaving a position worth ${worth} over ${what} ${limit}`
    : null;
}

function overCredit(order: OrderIntent, ctx: WitnessContext, limit: number, what: string) {
  if (limit <= 0) return null;
  const loss = ctx.startEquity - ctx.equity;
  return witnessed(order, ctx).adds && loss > limit * (1 + EPS)
    ? `adding exposure after a loss of ${loss} over ${what} ${limit}`
    : null;
}

/**
 * A bot with the fleet's others holding `exposure` and having lost `loss`: its first order of a
 * full position (worth the reference price) breaches the fleet's threshold, never its own.
 */
function fleetBreach(fleet: (limit: number) => FleetFigures, limitOf: (l: RiskLimits) => number) {
  return <V extends BreachVenue>(b: BreachBench<V>): V => {
    const v = b.open({ cash: b.cashFor(b.price), fleet: fleet(limitOf(b.limits) || 1e9) });
    v.pipeline.decide(1, b.price, b.t0, b.price);
    return v;
  };
}

export const capitalThresholdControl: RiskControlModule = {
  ...describedControl(CONTROL.capitalThreshold),
  id: CONTROL.capitalThreshold,
  refuse: capitalThreshold,
  limitOf: (l) => positive(l.capitalLimit),
  only: (l) => ({ capitalLimit: l.capitalLimit }),
  breach: {
    what: "an order leaving a position worth twice the capital threshold",
    craft(b) {
      const units = (2 * (b.limits.capitalLimit || 1e9)) / b.price;
      const v = b.open({ cash: b.cashFor(units * b.price) });
      v.pipeline.decide(1, b.price, b.t0, b.price);
      return v;
    },
  },
  stress: { witness: (o, ctx, l) => overCapital(o, ctx, l.capitalLimit, "capital_limit") },
};

/**
 * A position of half the account is bought at the reference price and the price halves, so the
 * run has lost twice the credit threshold (a quarter of the account); then the bot adds to it.
 */
export const creditThresholdControl: RiskControlModule = {
  ...describedControl(CONTROL.creditThreshold),
  id: CONTROL.creditThreshold,
  refuse: creditThreshold,
  limitOf: (l) => positive(l.creditLimit),
  only: (l) => ({ creditLimit: l.creditLimit }),
  breach: {
    what: "an order adding to a position after a loss of twice the credit threshold",
    craft(b) {
      const v = b.open({ cash: b.cashFor(8 * (b.limits.creditLimit || 1e9)) });
      v.pipeline.decide(0.5, b.price, b.t0, b.price);
      v.broker.onBar(b.price, b.price, b.price);
      v.pipeline.decide(1, b.price / 2, b.t0 + 1_000, b.price);
      return v;
    },
  },
  stress: { witness: (o, ctx, l) => overCredit(o, ctx, l.creditLimit, "credit_limit") },
};

// A stress replay runs the bot alone: the rest of its fleet holds nothing and has lost nothing,
// so the fleet's thresholds are witnessed on the bot's own figures.
export const fleetCapitalThresholdControl: RiskControlModule = {
  ...describedControl(CONTROL.fleetCapitalThreshold),
  id: CONTROL.fleetCapitalThreshold,
  refuse: fleetCapitalThreshold,
  limitOf: (l) => positive(l.fleetCapitalLimit),
  only: (l) => ({ fleetCapitalLimit: l.fleetCapitalLimit }),
  trial: { fleetCapitalLimit: 1_000_000 },
  breach: {
    what: "an order adding exposure while the rest of the fleet holds the fleet's capital threshold",
    craft: fleetBreach(
      (limit) => ({ exposure: limit, loss: 0 }),
      (l) => l.fleetCapitalLimit,
    ),
  },
  stress: {
    witness: (o, ctx, l) => overCapital(o, ctx, l.fleetCapitalLimit, "the fleet's capital_limit"),
  },
};

export const fleetCreditThresholdControl: RiskControlModule = {
  ...describedControl(CONTROL.fleetCreditThreshold),
  id: CONTROL.fleetCreditThreshold,
  refuse: fleetCreditThreshold,
  limitOf: (l) => positive(l.fleetCreditLimit),
  only: (l) => ({ fleetCreditLimit: l.fleetCreditLimit }),
  trial: { fleetCreditLimit: 1_000_000 },
  breach: {
    what: "an order adding exposure after the rest of the fleet lost twice the fleet's credit threshold",
    craft: fleetBreach(
      (limit) => ({ exposure: 0, loss: 2 * limit }),
      (l) => l.fleetCreditLimit,
    ),
  },
  stress: {
    witness: (o, ctx, l) => overCredit(o, ctx, l.fleetCreditLimit, "the fleet's credit_limit"),
  },
};
