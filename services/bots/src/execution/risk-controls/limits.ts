/**
 * The limits the risk controls hold every order to, from the BotSpec's `risk` and its fleet's
 * limits. Zero (or an empty list) leaves a control off: proto3 cannot tell 0 from unset, and no
 * limit of 0 makes sense (it would refuse every order).
 */
export interface RiskLimits {
  maxOrderNotional: number;
  maxOrderUnits: number;
  capitalLimit: number;
  creditLimit: number;
  priceCollarPct: number;
  maxOrdersPerWindow: number;
  throttleWindowMs: number;
  duplicateWindowMs: number;
  /** A fraction (0.01 is 1 %), floored at a float's noise so equal orders always match. */
  duplicateTolerance: number;
  restricted: ReadonlySet<string>;
  fleetCapitalLimit: number;
  fleetCreditLimit: number;
}

/** The spec's spelling of the limits (the proto's JSON names, camelCased by protobuf-es). */
export interface SpecRiskLimits {
  maxOrderNotional?: number;
  maxOrderUnits?: number;
  capitalLimit?: number;
  creditLimit?: number;
  priceCollarPct?: number;
  maxOrdersPerWindow?: number;
  throttleWindowS?: number;
  duplicateWindowS?: number;
  duplicateTolerancePct?: number;
  restrictedSymbols?: readonly string[];
}

export interface SpecFleetLimits {
  capitalLimit?: number;
  creditLimit?: number;
}

const FLOAT_NOISE = 1e-9;

/**
 * Turns the spec's limits into the controls' units (ms, fractions, a set).
 *
 * @example riskLimitsFrom({ maxOrderUnits: 5 }).maxOrderUnits // 5
 */
export function riskLimitsFrom(spec?: SpecRiskLimits, fleet?: SpecFleetLimits): RiskLimits {
  return {
    maxOrderNotional: spec?.maxOrderNotional ?? 0,
    maxOrderUnits: spec?.maxOrderUnits ?? 0,
    capitalLimit: spec?.capitalLimit ?? 0,
    creditLimit: spec?.creditLimit ?? 0,
    priceCollarPct: spec?.priceCollarPct ?? 0,
    maxOrdersPerWindow: spec?.maxOrdersPerWindow ?? 0,
    throttleWindowMs: (spec?.throttleWindowS ?? 0) * 1000,
    duplicateWindowMs: (spec?.duplicateWindowS ?? 0) * 1000,
    duplicateTolerance: Math.max(FLOAT_NOISE, (spec?.duplicateTolerancePct ?? 0) / 100),
    restricted: new Set(spec?.restrictedSymbols ?? []),
    fleetCapitalLimit: fleet?.capitalLimit ?? 0,
    fleetCreditLimit: fleet?.creditLimit ?? 0,
  };
}

/** Whether any control is on: with none, the order path carries no risk check at all. */
export function anyLimit(l: RiskLimits): boolean {
  return (
    l.maxOrderNotional > 0 ||
    l.maxOrderUnits > 0 ||
    l.capitalLimit > 0 ||
    l.creditLimit > 0 ||
    l.priceCollarPct > 0 ||
    l.maxOrdersPerWindow > 0 ||
    l.duplicateWindowMs > 0 ||
    l.restricted.size > 0 ||
    l.fleetCapitalLimit > 0 ||
    l.fleetCreditLimit > 0
  );
}
