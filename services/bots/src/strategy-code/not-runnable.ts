import type { BotSpec } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { Code, svcError } from "@svc/lib/errors";

/**
 * Strategy code backtests, paper-trades, deploys and passes conformance like a built-in family,
 * but a stress run does not drive it yet: the replay steps the strategy bar by bar over up to
 * 200 laps of its data set, a fresh instance a lap, and tries faster clocks again, which a
 * sandbox answering over a pipe cannot do in a task's time yet (issue 31). Until it does, such a
 * run is refused, saying so, instead of failing somewhere inside.
 */
export function refuseStrategyCodeRun(spec: BotSpec, what: string, run: string): void {
  const code = spec.strategy?.code;
  if (!code) return;
  throw svcError(
    Code.Unimplemented,
    "strategy_code_not_runnable",
    `${what} runs strategy code (${code.digest}); ${run} of strategy code is not available yet: backtests, paper sessions, conformance runs and deployments run it. Built-in families (strategy.family) run everywhere`,
    { field: "strategy.code", digest: code.digest, capability: "strategy code stress replay" },
  );
}
