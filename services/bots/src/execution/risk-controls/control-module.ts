import type { ControlDescription } from "@svc/lib/controls";
import type { PreTradeContext, Refusal } from "../pre-trade.js";
import type { OrderIntent } from "../sizing.js";
import type { ControlName } from "./controls.js";
import type { RiskLimits } from "./limits.js";
import type { FleetFigures, RiskContext } from "./risk-context.js";

/** A control's check: a refusal naming it, its limit and what it saw, or null. */
export type Control = (order: OrderIntent, ctx: RiskContext, l: RiskLimits) => Refusal | null;

/** What a conformance breach drives: a venue of the order path under the control alone. */
export interface BreachVenue {
  readonly pipeline: {
    decide(target: number, close: number, time?: number, reference?: number): void;
  };
  readonly broker: {
    onBar(open: number, high: number, low: number, volume?: number): void;
    cancelAll(reason: string): void;
  };
}

/** Where a breach is crafted: the case's reference price and clock, the bot, fresh venues. */
export interface BreachBench<V extends BreachVenue> {
  readonly price: number;
  readonly t0: number;
  /** The bot's own limits: the control under test at the bot's value. */
  readonly limits: RiskLimits;
  /** Cash that makes a full position (target 1) worth `notional` at `price`. */
  cashFor(notional: number): number;
  /** A fresh venue with only the control under test switched on. */
  open(o: { cash: number; symbol?: string; fleet?: FleetFigures }): V;
}

/** The conformance case of a control: a crafted order (or orders) it must refuse. */
export interface Breach {
  /** The breach in words: "an order of twice the maximum volume". */
  readonly what: string;
  craft<V extends BreachVenue>(bench: BreachBench<V>): V;
}

/** What the stress witness sees of an order every check accepted. */
export interface WitnessContext extends PreTradeContext {
  /** The capital the replay started with. */
  startEquity: number;
}

/**
 * How a stress run checks the control: `witness` re-judges every order the whole list accepted,
 * written apart from the control so one that lets an order through is caught, not trusted (the
 * breach in words, or null); `overRun` says how the run is judged instead when no single order
 * can show a breach (the throttle: orders per window).
 */
export type StressCheck =
  | { witness(order: OrderIntent, ctx: WitnessContext, l: RiskLimits): string | null }
  | { overRun: string };

/**
 * One pre-trade control, self-described: its description (lib/controls: what it checks, the
 * provisions it serves, its setting), its check, when it is on, its conformance case and its
 * stress check. The registry (registry.ts) lists them in the order they run; the risk guard,
 * the conformance suite and the stress witness are derived from it.
 */
export interface RiskControlModule extends ControlDescription {
  readonly id: ControlName;
  readonly refuse: Control;
  /** The limit in force, or undefined while the control is off. */
  limitOf(l: RiskLimits): number | string | undefined;
  /** The limits that switch this control alone on, at the bot's values. */
  only(l: RiskLimits): Partial<RiskLimits>;
  /**
   * The crafted breach of its conformance case, judged alike for every control; absent when the
   * control's case is one of its own (the throttle's burst, in compliance/control-cases.ts).
   */
  readonly breach?: Breach;
  /**
   * The limit a conformance case tries the control at when none is set, for a control a bot may
   * rightly run without (a fleet's threshold): the case shows the control works. A control
   * without one fails its case while its setting is unset.
   */
  readonly trial?: Partial<RiskLimits>;
  readonly stress: StressCheck;
}

/** Float noise a witness tolerates before calling an accepted order a breach. */
export const EPS = 1e-9;
