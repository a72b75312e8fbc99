import type { Bars } from "../bars.js";

/**
 * A strategy sees one bar at a time, at its close, and answers the exposure it wants from the
 * next bar's open on: a fraction of equity in [-1, 1]. It is never handed the bars object, so
 * it cannot look ahead.
 */
export interface Strategy {
  onBar(close: number, high: number, low: number): number;
}

/** The most bars the engine asks a `TargetSource` for in one `fill` (its block, kept in cache). */
export const TARGET_BLOCK = 4096;

/**
 * Targets for a run of bars, a block at a time and in order: `fill` writes the target of bars
 * [from, to) of `bars` into `out[0 .. to - from)`, each from that bar and the bars before it.
 */
export interface TargetSource {
  fill(bars: Bars, from: number, to: number, out: Float64Array): void;
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
  /**
   * The vectorised path, for families whose signal costs O(1) a bar: the same targets as
   * `create(p)` to the last bit, computed a column of bars at a time over contiguous arrays
   * (no ring buffer, no call per bar). Absent when the family does not vectorise.
   */
  columns?(p: Record<string, ParamValue>): TargetSource;
  /** The same targets computed over whole arrays, written independently: the tests' cross-check. */
  targets(bars: Bars, p: Record<string, ParamValue>): Float64Array;
}
