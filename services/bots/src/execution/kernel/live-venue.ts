import type { OrderKind, Side } from "../events.js";

/**
 * The seam to a real venue (FIX, ccxt), beside the bar-driven `Venue` a backtest fills against.
 * A real venue answers later or not at all, so every operation is asynchronous and bounded by a
 * deadline, and what happens to an order arrives as reports the adapter folds into one ledger:
 * the kernel's records (`order_placed`, `order_filled`, `order_cancelled`, `order_rejected`,
 * `position_changed`) go to the `VenueReport` the adapter was built with, each fill once however
 * often, late or out of order the venue tells of it.
 */
export interface LiveVenue {
  /** `fix`, `ccxt`, `simulated`. */
  readonly name: string;
  readonly capabilities: VenueCapabilities;
  readonly health: VenueHealth;
  /** Logs on (and, after a drop, learns what happened to its orders); rejects saying why not. */
  connect(): Promise<void>;
  /** Resolves once the venue acknowledged (working, filled or rejected). */
  submit(order: VenueOrderRequest): Promise<VenueOrderStatus>;
  /**
   * Resolves once the venue confirmed the cancel, or said the order was already done; `reason`
   * is what the `order_cancelled` record says (the kernel's own words, as with the simulated venue).
   */
  cancel(clientId: string, reason?: string): Promise<VenueOrderStatus>;
  /** Cancels every open order (of `symbol`); resolves with how many the venue confirmed. */
  cancelAll(symbol?: string): Promise<number>;
  /** Asks the venue (not the ledger) what became of an order; any fill it missed is booked. */
  status(clientId: string): Promise<VenueOrderStatus>;
  /** The venue's open orders (of `symbol`), as it reports them now. */
  openOrders(symbol?: string): Promise<VenueOrderStatus[]>;
  positions(): Promise<VenuePosition[]>;
  balances(): Promise<VenueBalance[]>;
  /** Live trades of `symbol` until the returned function is called. */
  subscribe(symbol: string, onTrade: (trade: VenueTrade) => void): Promise<() => Promise<void>>;
  onHealth(listener: (health: VenueHealth) => void): () => void;
  close(): Promise<void>;
}

/**
 * The kernel's order states; each adapter maps its venue's onto these. `pending`: sent, not yet
 * acknowledged; `unknown`: the adapter lost sight of the order (a dropped session, a deadline
 * passed) and must ask the venue before it counts on anything.
 */
export type VenueOrderState =
  "pending" | "working" | "partially_filled" | "filled" | "cancelled" | "rejected" | "unknown";

export const TERMINAL_STATES: ReadonlySet<VenueOrderState> = new Set([
  "filled",
  "cancelled",
  "rejected",
]);

export interface VenueOrderRequest {
  /** The kernel's order id, sent as the venue's client order id (FIX ClOrdID). */
  clientId: string;
  symbol: string;
  side: Side;
  units: number;
  kind: OrderKind;
  limitPrice?: number;
}

export interface VenueOrderStatus {
  clientId: string;
  venueOrderId?: string;
  symbol: string;
  side: Side;
  kind: OrderKind;
  units: number;
  filled: number;
  /** Volume-weighted price of what filled (0 before the first fill). */
  averagePrice: number;
  state: VenueOrderState;
  /** The venue's words for a rejection or a cancel it made itself. */
  reason?: string;
}

export interface VenuePosition {
  symbol: string;
  /** Signed: a short is negative. */
  units: number;
  /** `venue`: the venue reported it; `fills`: summed from the fills this adapter booked. */
  source: "venue" | "fills";
}

export interface VenueBalance {
  asset: string;
  free: number;
  locked: number;
}

export interface VenueTrade {
  symbol: string;
  price: number;
  units: number;
  time: Date;
}

/**
 * What a session with the venue is doing. `frozen`: the venue stopped answering (heartbeat
 * timeout); nothing is sent until `connect` succeeds again, and the runner must freeze too.
 * `failed`: the venue refused the logon (wrong credentials); retrying cannot help.
 */
export interface VenueHealth {
  state: "idle" | "connecting" | "connected" | "disconnected" | "frozen" | "failed" | "closed";
  reason?: string;
  since: Date;
}

/** What an adapter can and cannot do, so a runner refuses a mode its venue cannot serve. */
export interface VenueCapabilities {
  orderKinds: readonly OrderKind[];
  massCancel: "venue" | "emulated";
  massStatus: boolean;
  positions: "venue" | "fills";
  balances: "venue" | "none";
  marketData: "push" | "poll";
  /** Each thing the adapter does not do, in words a person reads. */
  cannot: readonly string[];
}

/** A venue operation that did not finish: the venue refused it, or its deadline passed. */
export class VenueError extends Error {
  constructor(
    readonly kind: "rejected" | "timeout" | "frozen" | "disconnected" | "auth" | "unsupported",
    message: string,
  ) {
    super(message);
    this.name = "VenueError";
  }
}
