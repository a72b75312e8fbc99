export { OrderLedger, type LedgerReport } from "./order-ledger.js";
export { PipelineVenue, type LedgerVenue } from "./pipeline-venue.js";
export { FIX_CAPABILITIES, FixVenue, type FixVenueOptions } from "./fix/fix-venue.js";
export { fixOrderStates } from "./fix/fix-reports.js";
export { CCXT_CAPABILITIES, CcxtVenue, type CcxtVenueOptions } from "./ccxt/ccxt-venue.js";
