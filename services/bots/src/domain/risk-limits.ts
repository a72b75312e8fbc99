import type { RiskLimits } from "@svc/gen/svc/bots/v1/bots_pb.js";

/** A limit that cannot be applied as sent: the field to fix and what is wrong with it. */
export interface LimitProblem {
  field: string;
  message: string;
}

/**
 * The rules of a BotSpec's risk limits that one field's bounds cannot say (the proto's field rules
 * already refuse negatives, NaN, absurd sizes and bad symbols): a throttle needs both its count
 * and its window, a duplicate tolerance needs a window, a restricted symbol appears once.
 *
 * @example riskLimitsProblem({ maxOrdersPerWindow: 5, throttleWindowS: 0, ... }) // { field: "spec.risk.throttle_window_s", ... }
 */
export function riskLimitsProblem(risk: RiskLimits | undefined): LimitProblem | null {
  if (!risk) return null;
  if (risk.maxOrdersPerWindow > 0 && !(risk.throttleWindowS > 0))
    return {
      field: "spec.risk.throttle_window_s",
      message:
        "spec.risk.throttle_window_s is required when spec.risk.max_orders_per_window is set: the throttle counts orders per window",
    };
  if (risk.throttleWindowS > 0 && !(risk.maxOrdersPerWindow > 0))
    return {
      field: "spec.risk.max_orders_per_window",
      message:
        "spec.risk.max_orders_per_window is required when spec.risk.throttle_window_s is set: the throttle needs a count",
    };
  if (risk.duplicateTolerancePct > 0 && !(risk.duplicateWindowS > 0))
    return {
      field: "spec.risk.duplicate_window_s",
      message:
        "spec.risk.duplicate_window_s is required when spec.risk.duplicate_tolerance_pct is set",
    };
  const seen = new Set<string>();
  for (const [i, symbol] of risk.restrictedSymbols.entries()) {
    if (seen.has(symbol))
      return {
        field: `spec.risk.restricted_symbols[${i}]`,
        message: `spec.risk.restricted_symbols lists ${symbol} twice`,
      };
    seen.add(symbol);
  }
  return null;
}
