import { EngineInputError } from "../engine-error.js";
import { breakout } from "./breakout.js";
import { maCrossover } from "./ma-crossover.js";
import { meanReversionBands } from "./mean-reversion-bands.js";
import type { ParamValue, StrategyFamily } from "./strategy.js";

export const STRATEGY_FAMILIES: Record<string, StrategyFamily> = {
  [maCrossover.family]: maCrossover,
  [meanReversionBands.family]: meanReversionBands,
  [breakout.family]: breakout,
};

/**
 * Checks a BotSpec's strategy (family and parameters) and fills defaults. Errors name the field
 * as the API shows it (strategy.parameters.slow) and list what is allowed.
 */
export function resolveStrategy(
  family: string,
  raw: Record<string, unknown> | undefined,
): { family: StrategyFamily; params: Record<string, ParamValue> } {
  const def = STRATEGY_FAMILIES[family];
  if (!def) {
    throw new EngineInputError(
      "unknown_strategy",
      `unknown strategy family "${family}"; built-in families: ${Object.keys(STRATEGY_FAMILIES).join(", ")}`,
      "strategy.family",
    );
  }
  const params: Record<string, ParamValue> = {};
  for (const key of Object.keys(raw ?? {})) {
    if (!(key in def.params)) {
      throw new EngineInputError(
        "invalid_parameter",
        `${family} has no parameter "${key}"; its parameters: ${Object.keys(def.params).join(", ")}`,
        `strategy.parameters.${key}`,
      );
    }
  }
  for (const [name, spec] of Object.entries(def.params)) {
    const v = raw?.[name] ?? spec.default;
    const field = `strategy.parameters.${name}`;
    if (v === undefined)
      throw new EngineInputError("invalid_parameter", `${field} is required (${spec.doc})`, field);
    if (spec.type === "boolean") {
      if (typeof v !== "boolean")
        throw new EngineInputError("invalid_parameter", `${field} must be true or false`, field);
    } else {
      if (
        typeof v !== "number" ||
        !Number.isFinite(v) ||
        (spec.type === "int" && !Number.isInteger(v))
      ) {
        throw new EngineInputError(
          "invalid_parameter",
          `${field} must be ${spec.type === "int" ? "a whole number" : "a number"} (${spec.doc})`,
          field,
        );
      }
      if (spec.min !== undefined && v < spec.min)
        throw new EngineInputError(
          "invalid_parameter",
          `${field} must be at least ${spec.min}`,
          field,
        );
    }
    params[name] = v as ParamValue;
  }
  const problem = def.check(params);
  if (problem)
    throw new EngineInputError(
      "invalid_parameter",
      `strategy.parameters.${problem.param}: ${problem.message}`,
      `strategy.parameters.${problem.param}`,
    );
  return { family: def, params };
}
