import { SeededRandom, StrategyRuntime } from "../../sandbox/child/runtime.js";
import type { Bars } from "../bars.js";
import type { AnyStrategyDefinition, ParamSpec, ParamValue, Strategy } from "./strategy.js";

/**
 * An SDK strategy run in this process: trusted code only (the built-in families), never an
 * uploaded one (those run in the sandbox). The context it reads is the sandbox's own runtime
 * (StrategyRuntime), so a built-in family and uploaded code share one strategy API and one
 * implementation of it; only the boundary differs. It answers the engine a bar at a time with
 * the weight the strategy targets.
 */
export class InProcessStrategy implements Strategy {
  private readonly runtime: StrategyRuntime;
  constructor(
    definition: AnyStrategyDefinition,
    params: Record<string, ParamValue>,
    symbol = "ASSET",
  ) {
    this.runtime = new StrategyRuntime(
      definition,
      // A built-in family logs nothing and draws no random numbers.
      { params, symbols: [symbol], seed: 0, logLines: 0, logLineChars: 0 },
      SeededRandom.fromSeed(0),
    );
    this.runtime.init();
  }

  onBar(b: Bars, t: number): number {
    return this.runtime.stepOne(b, t);
  }
}

/** An SDK definition's declarations as a family's parameters (their description is the doc). */
export function declaredParams(definition: AnyStrategyDefinition): Record<string, ParamSpec> {
  const out: Record<string, ParamSpec> = {};
  for (const [name, spec] of Object.entries(definition.params)) {
    if (spec.type === "enum")
      throw new TypeError(`a built-in family has no enum parameter (${name})`);
    out[name] = {
      type: spec.type,
      ...(spec.type !== "boolean" && spec.min !== undefined ? { min: spec.min } : {}),
      default: spec.default,
      doc: spec.description ?? name,
    };
  }
  return out;
}
