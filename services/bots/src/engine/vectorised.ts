import type { Bars } from "./bars.js";
import { EngineInputError } from "./engine-error.js";
import { BacktestRun, type BacktestOptions } from "./event-engine.js";
import type { RunMetrics } from "./metrics.js";
import type { EngineSettings } from "./settings.js";
import type { ParamValue, StrategyFamily } from "./strategies/strategy.js";

/**
 * The vectorised path: the same run as the event-driven engine (the same order path, books,
 * curve and trades, over the same chunks of bars), with the strategy's targets computed a
 * column of bars at a time by the family's `columns` instead of one `onBar` call per bar. Only
 * families whose signal costs O(1) a bar have one (ma_crossover, breakout); a family that
 * rescans a window every bar (mean_reversion_bands) is refused, never approximated.
 */
export function vectorisedRun(
  family: StrategyFamily,
  params: Record<string, ParamValue>,
  settings: EngineSettings,
  options?: BacktestOptions,
): BacktestRun {
  if (!family.columns)
    throw new EngineInputError(
      "invalid_parameter",
      `${family.family} has no vectorised path (its signal rescans a window every bar); run it event-driven`,
      "strategy.family",
    );
  return new BacktestRun(family.columns(params), settings, options);
}

/** One whole vectorised backtest over bars already in memory. */
export function runVectorised(
  bars: Bars,
  family: StrategyFamily,
  params: Record<string, ParamValue>,
  settings: EngineSettings,
  options?: BacktestOptions,
): RunMetrics {
  const run = vectorisedRun(family, params, settings, options);
  run.feed(bars);
  return run.finish();
}
