/**
 * The strategy sandbox: runs a strategy bundle (untrusted code) in its own process under
 * bubblewrap, with the runtime that implements the SDK's Context beside it, and speaks to it in
 * blocks of bars. The execution kernel calls this API; see docs/architecture.md ("Strategy
 * sandbox") for why this mechanism and what each limit does.
 *
 *     const sandbox = await startSandbox({ bundle, params, symbols, seed, limits });
 *     const { params, lookback } = await sandbox.init();
 *     let from = 0;
 *     while (from < block[0].length) {
 *       const { stoppedAfter, decisions } = await sandbox.decide(block, from, to, portfolio, fills);
 *       // fill decisions at bar stoppedAfter + 1's open, update portfolio and fills
 *       from = stoppedAfter + 1;
 *     }
 *     await sandbox.stop();
 *
 * Every failure the strategy causes rejects with StrategyFailure (code strategy_timeout,
 * strategy_memory, strategy_error or invalid_params) and ends the sandbox's process.
 */
export { SandboxUnavailable, startSandbox, StrategyFailure } from "./host.js";
export type { Sandbox, SandboxBlock, SandboxOptions } from "./host.js";
export { DEFAULT_SANDBOX_LIMITS, sandboxLimitsFromEnv } from "./limits.js";
export type { SandboxLimits } from "./limits.js";
export { bundleStrategyFile } from "./build.js";
export type {
  DecideAnswer,
  Decision,
  FillView,
  InitAnswer,
  LogLine,
  PortfolioView,
  SandboxSnapshot,
  StopAnswer,
  StrategyFailureCode,
} from "./types.js";
/**
 * The runtime itself, in this process: for the bench's in-process reference and tests of trusted
 * code only. Untrusted code runs through startSandbox, never here.
 */
export { SeededRandom, StrategyRuntime } from "./child/runtime.js";
export { columnsLength } from "./protocol.js";
