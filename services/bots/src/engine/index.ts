export { EngineInputError, type EngineErrorCode } from "./engine-error.js";
export { allocateBars, barsAt, setBar, sliceBars, type Bars } from "./bars.js";
export { CsvBarParser, parseCsvBars, streamCsvBars } from "./csv-source.js";
export { generateBars, type SyntheticOptions } from "./synthetic-source.js";
export { DEFAULT_ENGINE_SETTINGS, engineSettingsFrom, type EngineSettings } from "./settings.js";
export { BacktestRun, runBacktest, type BacktestOptions } from "./event-engine.js";
export { riskAdjusted, type RunMetrics, type RunResults } from "./metrics.js";
export { EquitySeries, SERIES_BUCKETS, type EquityPoint } from "./equity-series.js";
export { MAX_TRADES_KEPT, TradeBook, type Trade } from "./trade-book.js";
export { runVectorised, vectorisedRun } from "./vectorised.js";
export {
  BUNDLED_DATASETS,
  checkBars,
  DEFAULT_DATA_SOURCE,
  describeSource,
  loadBars,
  streamBars,
  SYNTHETIC_MAX_BARS,
  timeframeMs,
  type DatasetSource,
  type SourceOptions,
} from "./data-source.js";
export { STRATEGY_FAMILIES, resolveStrategy } from "./strategies/registry.js";
export type { Strategy, StrategyFamily, ParamValue, TargetSource } from "./strategies/strategy.js";
// The order path backtests share with paper sessions (and stress and conformance runs).
export * from "../execution/index.js";
export { alignBars, type AlignedBars, type SymbolGaps } from "./portfolio/aligned.js";
export {
  PortfolioRun,
  SHORT_REFUSED,
  type PortfolioHost,
  type PortfolioSettings,
  type PortfolioSink,
} from "./portfolio/portfolio-run.js";
export type { PortfolioResult, SymbolResult, SymbolTrade } from "./portfolio/portfolio-books.js";
export {
  isPortfolio,
  loadPortfolioBars,
  MAX_PORTFOLIO_SYMBOLS,
  partOptions,
  portfolioParts,
  type PortfolioParts,
} from "./portfolio/portfolio-source.js";
