import type { Order, OrderKind, Side } from "../events.js";
import type { BrokerReport } from "../simulated-broker.js";

/**
 * Where the kernel's orders go: the simulated broker today, a FIX or ccxt adapter later. The order
 * pipeline and the kernel reach a venue through this interface alone, so a live adapter changes
 * no caller.
 *
 * Three things, kept minimal on purpose:
 * - `submit` hands an order over and answers it as working (its id names it in every record);
 * - `cancel` withdraws a working order (a cancel of an order already gone does nothing);
 * - fills are never answered by `submit`: a venue reports each fill as it happens, through the
 *   `VenueReport` it was built with (`fill`, then the `order_filled` and `position_changed`
 *   records), a simulated venue at the next bar's open and a real one when its execution report
 *   arrives. `cash`, `units` and `openOrders` are the venue's books as of the last fill reported.
 *
 * A real venue (FIX, ccxt) answers later or not at all: its adapters implement `LiveVenue`
 * (live-venue.ts), asynchronous and with deadlines, and write the same records through the same
 * `VenueReport`; `PipelineVenue` (venues/pipeline-venue.ts) puts one behind this interface.
 */
export interface Venue {
  readonly symbol: string;
  readonly cash: number;
  readonly units: number;
  /** Orders submitted and neither filled nor cancelled yet, in submission order. */
  readonly openOrders: readonly Order[];
  /** `price` is a limit order's limit price or a stop order's stop price. */
  submit(side: Side, units: number, kind?: OrderKind, price?: number): Order;
  cancel(orderId: string, reason: string): void;
  cancelAll(reason: string): void;
}

/**
 * A venue that fills from the bars the kernel shows it (the simulated broker): the kernel hands
 * it every bar's open before the strategy decides at that bar's close. A kill switch's flatten
 * closes the position at once at a price the runner names.
 */
export interface BarVenue extends Venue {
  onBar(open: number, high: number, low: number, volume?: number): void;
  flattenAt(price: number): void;
}

/** Who hears what a venue does: every record in order, and every fill as it is booked. */
export type VenueReport = BrokerReport;
