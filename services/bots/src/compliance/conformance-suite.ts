import type { ConformanceCase } from "./compliance-case.js";
import {
  capitalBreach,
  creditBreach,
  duplicateOrder,
  outsideCollar,
  overValueOrder,
  oversizedOrder,
  restrictedSymbol,
  throttleBurst,
} from "./control-cases.js";
import { killSwitchDrain } from "./kill-switch-drain.js";
import { cancelHonoured, marketOrderAccepted } from "./order-cases.js";

/**
 * The RTS 6 Article 6 conformance suite, in the order it runs: the venue accepts the bot's
 * orders and honours its cancels, each pre-trade control fires on a crafted breach, and the kill
 * switch drains it. Each case runs alone on a venue of its own.
 */
export const CONFORMANCE_SUITE: readonly ConformanceCase[] = [
  marketOrderAccepted,
  cancelHonoured,
  oversizedOrder,
  overValueOrder,
  capitalBreach,
  creditBreach,
  outsideCollar,
  throttleBurst,
  duplicateOrder,
  restrictedSymbol,
  killSwitchDrain,
];
