import type { Bars } from "../bars.js";

/**
 * A strategy sees one bar at a time, at its close, and answers the exposure it wants from the
 * next bar's open on: a fraction of equity in [-1, 1]. It is never handed the bars object, so
 * it cannot look ahead.
 */
export interface Strategy {
  onBar(close: number, high: number, low: number): number;
}

export type ParamValue = number | boolean;

export interface ParamSpec {
  type: "int" | "number" | "boolean";
  min?: number;
  default?: ParamValue;
  doc: string;
}

/** A built-in strategy family: its parameters, their cross-checks, and two implementations. */
export interface StrategyFamily {
  family: string;
  params: Record<string, ParamSpec>;
  /** Rules between parameters; a message naming the parameter, or null. */
  check(p: Record<string, ParamValue>): { param: string; message: string } | null;
  create(p: Record<string, ParamValue>): Strategy;
  /** The same targets computed over whole arrays, written independently: the cross-check. */
  targets(bars: Bars, p: Record<string, ParamValue>): Float64Array;
}
