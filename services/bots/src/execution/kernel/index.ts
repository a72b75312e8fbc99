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
export {
  TERMINAL_STATES,
  VenueError,
  type LiveVenue,
  type VenueBalance,
  type VenueCapabilities,
  type VenueHealth,
  type VenueOrderRequest,
  type VenueOrderState,
  type VenueOrderStatus,
  type VenuePosition,
  type VenueTrade,
} from "./live-venue.js";
