import type { ParamSpec as SdkParamSpec, StrategyDefinition } from "@svc/strategy-sdk";
import type { Bars } from "../bars.js";

/**
 * What the engine asks a bar at a time: at bar `t`'s close, the exposure wanted from the next
 * bar's open on (a fraction of equity in [-1, 1]). It reads bar `t` of `b` and none after it.
 * A built-in family's is its SDK strategy run in this process (InProcessStrategy), which never
 * sees `b` itself, so it cannot look ahead; tests script their own.
 */
export interface Strategy {
  onBar(b: Bars, t: number): number;
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

/** An SDK strategy of any declared parameters (what the in-process host runs). */
export type AnyStrategyDefinition = StrategyDefinition<Record<string, SdkParamSpec>>;

/**
 * A built-in strategy family: an SDK strategy (its `definition`, in ./sdk/), the parameters it
 * declares, their cross-checks, and a vectorised path where the family has one.
 */
export interface StrategyFamily {
  family: string;
  /** The family's strategy, written on the SDK as uploaded code is; `create` runs it in this process. */
  definition: AnyStrategyDefinition;
  /** The definition's declarations, as the API, the console and sweeps read them. */
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
