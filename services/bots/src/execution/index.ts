export type { ExecutionEvent, Order, OrderKind, Side } from "./events.js";
export { feeOf, slipped, type Costs } from "./costs.js";
export { DUST_FRACTION, isDust, ordersForTarget, type OrderIntent, type Sizing } from "./sizing.js";
export {
  SimulatedBroker,
  VOLUME_CANCEL,
  type Account,
  type BrokerReport,
} from "./simulated-broker.js";
export {
  ACCEPT,
  firstRefusal,
  noteAccepted,
  type Refusal,
  type RefusalRecord,
  type PreTradeCheck,
  type PreTradeContext,
  type PreTradeVerdict,
} from "./pre-trade.js";
export { OrderPipeline } from "./order-pipeline.js";
export { onlyReduces, reduceOnlyWhile, REDUCE_ONLY_CHECK } from "./reduce-only.js";
export * from "./risk-controls/index.js";
