import type { Refusal } from "../pre-trade.js";
import type { OrderIntent } from "../sizing.js";
import { CONTROL } from "./controls.js";
import { heldAfter, lossOf, reducesExposure } from "./exposure.js";
import type { RiskLimits } from "./limits.js";
import { refuse } from "./refusal.js";
import type { RiskContext } from "./risk-context.js";

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
