import type { ConformanceCase } from "./compliance-case.js";
import { CONTROL_CASES } from "./control-cases.js";
import { killSwitchDrain } from "./kill-switch-drain.js";
import { cancelHonoured, marketOrderAccepted } from "./order-cases.js";

/**
 * The RTS 6 Article 6 conformance suite, in the order it runs: the venue accepts the bot's
 * orders and honours its cancels, each pre-trade control of the registry (RISK_CONTROLS, in the
 * order they run) fires on a crafted breach, and the kill switch drains it. Each case runs alone
 * on a venue of its own.
 */
export const CONFORMANCE_SUITE: readonly ConformanceCase[] = [
  marketOrderAccepted,
  cancelHonoured,
  ...CONTROL_CASES,
  killSwitchDrain,
];
