import { CONTROL } from "../execution/risk-controls/index.js";
import type { BotUnderTest, ConformanceCase } from "./compliance-case.js";
import { CONTROL_CASES } from "./control-cases.js";
import { killSwitchDrain } from "./kill-switch-drain.js";
import { cancelHonoured, marketOrderAccepted } from "./order-cases.js";
import { portfolioCapitalThreshold, tradesUniverse } from "./portfolio-cases.js";

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

/**
 * The suite a bot runs: a bot trading a universe of several symbols runs the same cases, with the
 * capital threshold judged on its portfolio's order path (the gross value of every symbol's
 * position) and the kill switch draining every symbol (killSwitchDrain); the other controls judge
 * each order alike whatever its symbol, so their cases are the one-symbol ones.
 */
export function suiteFor(bot: BotUnderTest): readonly ConformanceCase[] {
  if (!tradesUniverse(bot)) return CONFORMANCE_SUITE;
  return CONFORMANCE_SUITE.map((c) =>
    c.name === CONTROL.capitalThreshold ? portfolioCapitalThreshold : c,
  );
}
