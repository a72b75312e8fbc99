export {
  startDevVenue,
  type DevVenue,
  type DevVenueOptions,
  type LiquiditySeed,
} from "./dev-venue.js";
export {
  connectFixClient,
  type FixClient,
  type FixClientOptions,
  type Received,
} from "./fix-client.js";
export { setFixLogLevel, type FixLogLevel } from "./fix-runtime.js";
export { closesFromCsv, seededWalk } from "./price-path.js";
export type { FaultSwitches } from "./faults.js";
export type { Exchange, VenueOrder, Execution, Trade } from "./exchange.js";
export type { HistorySeed } from "./klines.js";
