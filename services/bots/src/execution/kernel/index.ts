export {
  createKernel,
  ExecutionKernel,
  STRATEGY_CANCEL,
  type KernelOptions,
  type KernelRisk,
} from "./kernel.js";
export {
  BuiltInHost,
  type AsyncStrategyHost,
  type BarBlock,
  type DecisionSink,
  type KernelFill,
  type KernelOrder,
  type PortfolioView,
  type StrategyHost,
  type StrategyLogLine,
} from "./strategy-host.js";
export type { BarVenue, Venue, VenueReport } from "./venue.js";
