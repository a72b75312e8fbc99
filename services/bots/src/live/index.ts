export {
  LiveRunner,
  LiveStartRefused,
  type LiveDecision,
  type LiveMode,
  type LivePhase,
  type LiveRunnerOptions,
  type LiveStrategy,
} from "./live-runner.js";
export {
  ReconciliationFailed,
  reconcileAtStart,
  resumeLedger,
  type Reconciliation,
} from "./reconcile.js";
export { haltAtVenue, type VenueHalt } from "./venue-halt.js";
export { bookFromEvents, type EventsBook } from "./events-book.js";
