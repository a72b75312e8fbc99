import { Code, svcError } from "@svc/lib/errors";
import {
  sandboxLimitsFromEnv,
  SandboxUnavailable,
  startSandbox,
  StrategyFailure,
} from "../sandbox/index.js";
import type { DeclaredParams } from "./param-problems.js";

/**
 * What loading a bundle once in the sandbox, with its defaults, tells about its parameters:
 * their declarations, or why they could not be read.
 */
export type Declarations =
  | { ok: true; declared: DeclaredParams }
  /** The declared defaults break the declarations themselves (a default outside its range). */
  | { ok: false; invalidDefaults: string }
  /** The strategy failed or stalled in its init without data, or no sandbox runs here. */
  | { ok: false; unknown: string };

export type DeclarationsProbe = (bundle: string) => Promise<Declarations>;

/** Probes at once in one process; one more answers 429 like a busy checker (nothing is written). */
const MAX_PROBES = 2;

/**
 * Reads a strategy's parameter declarations the only safe way: its code runs in the sandbox (the
 * declarations are values its code computes, so reading the source is not enough), under the
 * run's limits (a shorter call would time out on a loaded machine, where node's own start counts
 * against it, and leave the parameters unchecked), on no data.
 */
export function createDeclarationsProbe(): DeclarationsProbe {
  let running = 0;
  return async (bundle) => {
    if (running >= MAX_PROBES)
      throw svcError(
        Code.ResourceExhausted,
        "strategy_check_busy",
        "the platform is checking other strategies' parameters; try again in a few seconds",
        { field: "strategy.code" },
      );
    running++;
    try {
      const sandbox = await startSandbox({
        bundle,
        params: {},
        symbols: ["PROBE"],
        seed: 1,
        limits: sandboxLimitsFromEnv(),
      });
      try {
        const answer = await sandbox.init();
        return { ok: true, declared: answer.declared as DeclaredParams };
      } finally {
        sandbox.kill();
      }
    } catch (err) {
      if (err instanceof StrategyFailure && err.code === "invalid_params")
        return { ok: false, invalidDefaults: err.message };
      if (err instanceof StrategyFailure || err instanceof SandboxUnavailable)
        return {
          ok: false,
          unknown: `${err instanceof StrategyFailure ? `${err.code}: ` : ""}${err.message}`,
        };
      throw err;
    } finally {
      running--;
    }
  };
}
