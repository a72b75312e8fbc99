import type { ExecutionEvent } from "../execution/events.js";
import { createKernel } from "../execution/kernel/index.js";
import type { OrderPipeline } from "../execution/order-pipeline.js";
import type { FleetFigures, RiskLimits } from "../execution/risk-controls/index.js";
import type { SimulatedBroker } from "../execution/simulated-broker.js";
import type { BotUnderTest } from "./compliance-case.js";

/** The reference price of every scenario: round, so crafted breaches are easy to read back. */
export const REFERENCE_PRICE = 100;
/** Bar times of a scenario start here (2026-01-01T00:00Z); only their spacing matters. */
export const T0 = Date.UTC(2026, 0, 1);

/**
 * A simulated venue for one case: the bot's sizing and costs, the execution kernel a backtest
 * and a paper session run on (order pipeline -> risk controls -> simulated venue; no strategy:
 * a case sends its crafted decisions itself), and every record it makes. `limits` are the
 * controls switched on for the case (the bot's own values).
 */
export class Venue {
  readonly events: ExecutionEvent[] = [];
  readonly broker: SimulatedBroker;
  readonly pipeline: OrderPipeline;

  constructor(
    bot: BotUnderTest,
    limits: RiskLimits,
    o: { cash: number; symbol?: string; fleet?: FleetFigures },
  ) {
    const fleet = o.fleet;
    const kernel = createKernel({
      symbol: o.symbol ?? bot.symbol,
      account: { cash: o.cash, units: 0 },
      costs: bot.costs,
      onEvent: (e) => this.events.push(e),
      risk: { limits, startEquity: o.cash, ...(fleet ? { fleet: () => fleet } : {}) },
    });
    this.broker = kernel.venue;
    this.pipeline = kernel.pipeline;
  }

  of<T extends ExecutionEvent["type"]>(type: T): Extract<ExecutionEvent, { type: T }>[] {
    return this.events.filter((e): e is Extract<ExecutionEvent, { type: T }> => e.type === type);
  }
}

/** Only the one control under test switched on, at the bot's limit: one refusal, one name. */
export function onlyControl(all: RiskLimits, keep: Partial<RiskLimits>): RiskLimits {
  return {
    maxOrderNotional: 0,
    maxOrderUnits: 0,
    capitalLimit: 0,
    creditLimit: 0,
    priceCollarPct: 0,
    maxOrdersPerWindow: 0,
    throttleWindowMs: 0,
    duplicateWindowMs: 0,
    duplicateTolerance: all.duplicateTolerance,
    restricted: new Set(),
    fleetCapitalLimit: 0,
    fleetCreditLimit: 0,
    ...keep,
  };
}

/**
 * Cash that makes a full position (target 1) worth `notional` at the reference price, whatever
 * the bot's position size: the knob a case turns to craft an order of a given size.
 */
export function cashForNotional(bot: BotUnderTest, notional: number): number {
  return notional / bot.costs.positionSize;
}
