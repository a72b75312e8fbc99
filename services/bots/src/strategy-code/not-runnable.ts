import type { BotSpec } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { Code, svcError } from "@svc/lib/errors";

/**
 * A version with strategy code is stored, served and promotable, but nothing runs it yet: the
 * sandbox that will (issue 31, item 4) is not built. Until then a run of one is refused, saying
 * so, instead of failing somewhere inside the engine.
 */
export function refuseStrategyCodeRun(spec: BotSpec, what: string, run: string): void {
  const code = spec.strategy?.code;
  if (!code) return;
  throw svcError(
    Code.Unimplemented,
    "strategy_code_not_runnable",
    `${what} runs strategy code (${code.digest}); ${run} of strategy code is not available yet: the strategy sandbox is not built. Built-in families (strategy.family) run today`,
    { field: "strategy.code", digest: code.digest, capability: "strategy code sandbox" },
  );
}
