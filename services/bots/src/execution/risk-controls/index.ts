export { CONTROL, type ControlName } from "./controls.js";
export {
  anyLimit,
  riskLimitsFrom,
  type RiskLimits,
  type SpecFleetLimits,
  type SpecRiskLimits,
} from "./limits.js";
export { maxOrderNotional, maxOrderUnits } from "./order-size.js";
export { priceCollar } from "./price-collar.js";
export { duplicateOrder, messageThrottle } from "./rate.js";
export { RecentOrders } from "./recent-orders.js";
export { restrictedInstrument } from "./restricted.js";
export type { FleetFigures, RiskContext } from "./risk-context.js";
export { CONTROLS, RiskGuard, type DisabledBy, type RiskGuardOptions } from "./risk-guard.js";
export {
  capitalThreshold,
  creditThreshold,
  fleetCapitalThreshold,
  fleetCreditThreshold,
} from "./thresholds.js";
export { RISK_CONTROLS } from "./registry.js";
export {
  EPS as WITNESS_EPS,
  type Breach,
  type BreachBench,
  type BreachVenue,
  type Control,
  type RiskControlModule,
  type StressCheck,
  type WitnessContext,
} from "./control-module.js";
