import type { BotSpec } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { Code, svcError } from "@svc/lib/errors";

/**
 * A version with strategy code backtests in the strategy sandbox, but paper sessions, conformance
 * and stress runs and deployments do not run it yet (their kernels drive a synchronous host; issue
 * 31). Until they do, such a run is refused, saying so, instead of failing somewhere inside.
 */
export function refuseStrategyCodeRun(spec: BotSpec, what: string, run: string): void {
  const code = spec.strategy?.code;
  if (!code) return;
  throw svcError(
    Code.Unimplemented,
    "strategy_code_not_runnable",
    `${what} runs strategy code (${code.digest}); ${run} of strategy code is not available yet: only backtests run it in the strategy sandbox today. Built-in families (strategy.family) run everywhere`,
    { field: "strategy.code", digest: code.digest, capability: "strategy code sandbox" },
  );
}
