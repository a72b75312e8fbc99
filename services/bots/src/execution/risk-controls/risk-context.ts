import type { PreTradeContext } from "../pre-trade.js";
import type { RecentOrders } from "./recent-orders.js";

/** What the rest of a bot's fleet holds and has lost, its own share left out. */
export interface FleetFigures {
  exposure: number;
  loss: number;
}

/**
 * Everything a control judges an order by: the book and the bar's clock and reference price
 * (from the order path), the capital the run started with, its recent orders, and its fleet.
 * Nothing comes from a global: the same context gives the same verdict.
 */
export interface RiskContext extends PreTradeContext {
  startEquity: number;
  recent: RecentOrders;
  fleet: FleetFigures;
}
