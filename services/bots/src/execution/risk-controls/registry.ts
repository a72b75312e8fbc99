import type { RiskControlModule } from "./control-module.js";
import { maxOrderNotionalControl, maxOrderUnitsControl } from "./order-size.js";
import { priceCollarControl } from "./price-collar.js";
import { duplicateOrderControl, messageThrottleControl } from "./rate.js";
import { restrictedInstrumentControl } from "./restricted.js";
import {
  capitalThresholdControl,
  creditThresholdControl,
  fleetCapitalThresholdControl,
  fleetCreditThresholdControl,
} from "./thresholds.js";

/**
 * The one registry of pre-trade controls, in the order they run on an order: what the order is
 * (instrument, size, value, price) before what it does to the books, and the throttle last, so
 * it counts only orders that would go out. Derived from it: the risk guard's checks (CONTROLS),
 * the conformance suite's control cases (compliance/conformance-suite.ts), the stress witness's
 * checks (compliance/stress-witness.ts); the articles the compliance report judges those cases
 * by come from the same descriptions (lib/controls). A control added here without a conformance
 * case fails compliance/control-registry.test.ts.
 */
export const RISK_CONTROLS: readonly RiskControlModule[] = [
  restrictedInstrumentControl,
  maxOrderUnitsControl,
  maxOrderNotionalControl,
  priceCollarControl,
  capitalThresholdControl,
  creditThresholdControl,
  fleetCapitalThresholdControl,
  fleetCreditThresholdControl,
  duplicateOrderControl,
  messageThrottleControl,
];
