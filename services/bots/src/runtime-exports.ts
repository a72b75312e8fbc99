/** The runner, its watcher and the engine, for processes that host runners (benchmarks, a runner pod). */
export { BotRunner } from "./runner/bot-runner.js";
export { watchKillSwitch, keysFor } from "./runner/kill-switch-watcher.js";
export { generateBars, resolveStrategy } from "./engine/index.js";
export { claimNextBacktest } from "./store/backtest-queue.repository.js";
