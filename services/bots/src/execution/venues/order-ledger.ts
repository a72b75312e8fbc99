import type { ExecutionEvent, Order } from "../events.js";
import {
  TERMINAL_STATES,
  VenueError,
  type VenueOrderRequest,
  type VenueOrderState,
  type VenueOrderStatus,
  type VenuePosition,
} from "../kernel/live-venue.js";
import type { VenueReport } from "../kernel/venue.js";

/**
 * One report of a venue about one order, in the kernel's terms. `filled` is the venue's
 * cumulative quantity: the ledger books the difference to what it already booked, so a report
 * heard twice, late, out of order or only as a status answer after a reconnect books each unit
 * once.
 */
export interface LedgerReport {
  clientId: string;
  venueOrderId?: string;
  state: VenueOrderState;
  filled: number;
  averagePrice: number;
  /** This report's own fill, when it carries one (FIX LastQty/LastPx). */
  lastUnits?: number;
  lastPrice?: number;
  /** The fee of this report's fill, in the quote currency. */
  fee?: number;
  reason?: string;
  /** The order itself, so one the ledger never saw (placed before a restart) is adopted. */
  order?: Omit<VenueOrderRequest, "clientId">;
}

/** Printable ASCII without spaces: safe inside a FIX field (no SOH, no '=') and a query string. */
const SAFE_ID = /^[\x21-\x3c\x3e-\x7e]{1,64}$/;

function invalidOrder(r: VenueOrderRequest): string | null {
  if (typeof r.clientId !== "string" || !SAFE_ID.test(r.clientId))
    return `order id ${JSON.stringify(r.clientId)} must be 1 to 64 printable ASCII characters without spaces or '='`;
  if (typeof r.symbol !== "string" || !SAFE_ID.test(r.symbol))
    return `symbol ${JSON.stringify(r.symbol)} must be 1 to 64 printable ASCII characters without spaces or '='`;
  if (r.side !== "buy" && r.side !== "sell")
    return `side must be buy or sell, not ${String(r.side)}`;
  if (!(Number.isFinite(r.units) && r.units > 0))
    return `units must be a positive finite number, not ${r.units}`;
  if (r.kind === "limit" && !(Number.isFinite(r.limitPrice) && r.limitPrice! > 0))
    return `a limit order needs a positive finite limit price, not ${r.limitPrice}`;
  return null;
}

/** Why a report cannot be true of an order of `units`, or null. */
function impossibleReport(r: LedgerReport, units: number): string | null {
  const numbers = [r.filled, r.averagePrice, r.lastUnits ?? 0, r.lastPrice ?? 0, r.fee ?? 0];
  if (!numbers.every(Number.isFinite)) return "a quantity or price that is not a finite number";
  if (r.filled < 0 || r.averagePrice < 0) return "a negative quantity or price";
  if (r.filled > units * (1 + 1e-9) + EPSILON)
    return `filled ${r.filled} of an order of ${units} (an overfill)`;
  return null;
}

/** Units below this are float noise of the venue's sums, not a fill. */
const EPSILON = 1e-9;

const rank: Record<VenueOrderState, number> = {
  unknown: 0,
  pending: 0,
  working: 1,
  partially_filled: 2,
  filled: 3,
  cancelled: 3,
  rejected: 3,
};

interface Entry {
  request: VenueOrderRequest;
  status: VenueOrderStatus;
  /** The `order_placed` record was written (the venue acknowledged it). */
  placed: boolean;
  /** The reason the kernel gave when it asked to cancel. */
  cancelReason?: string;
}

type Waiter = { clientId: string; until: (s: VenueOrderStatus) => boolean; done: () => void };

/**
 * The orders an adapter sent and what the venue said of them: it turns the venue's reports into
 * the kernel's records, each once, in an order that never regresses (a late `New` after a fill
 * changes nothing; a finished order stays finished), and keeps the position and cash the fills
 * add up to.
 */
export class OrderLedger {
  private readonly entries = new Map<string, Entry>();
  private readonly units = new Map<string, number>();
  private readonly waiters = new Set<Waiter>();
  /** Reports refused as impossible (latest 100), for the runner to surface: see `apply`. */
  readonly anomalies: string[] = [];
  cash: number;

  constructor(
    private readonly report: VenueReport,
    startCash = 0,
  ) {
    this.cash = startCash;
  }

  /**
   * Notes an order about to be sent. An order no venue could take (a client id in use, or one
   * that would break a FIX frame or a URL, a quantity or price that is not a positive finite
   * number) is refused here, before anything is sent.
   */
  add(request: VenueOrderRequest): VenueOrderStatus {
    const invalid = invalidOrder(request);
    if (invalid) throw new VenueError("rejected", invalid);
    if (this.entries.has(request.clientId))
      throw new VenueError("rejected", `order id ${request.clientId} was already sent`);
    return this.insert(request);
  }

  private insert(request: VenueOrderRequest): VenueOrderStatus {
    const status: VenueOrderStatus = {
      clientId: request.clientId,
      symbol: request.symbol,
      side: request.side,
      kind: request.kind,
      units: request.units,
      filled: 0,
      averagePrice: 0,
      state: "pending",
    };
    this.entries.set(request.clientId, { request, status, placed: false });
    return { ...status };
  }

  /**
   * Takes up a previous run's book as the bot's events tell it, before the venue is asked: its
   * position and cash, and the orders it had placed and not seen finish, each with the units
   * already booked (so a status answer books only what was missed, never a fill twice). Those
   * orders are `unknown` until the venue says what became of them.
   */
  resume(book: {
    cash: number;
    positions: Record<string, number>;
    orders: readonly (VenueOrderRequest & { filled: number; averagePrice: number })[];
  }): void {
    this.cash = book.cash;
    for (const [symbol, units] of Object.entries(book.positions)) this.units.set(symbol, units);
    for (const o of book.orders) {
      if (this.entries.has(o.clientId)) continue;
      const { filled, averagePrice, ...request } = o;
      this.insert(request);
      const e = this.entries.get(o.clientId)!;
      e.placed = true;
      Object.assign(e.status, { filled, averagePrice, state: "unknown" });
    }
  }

  get(clientId: string): VenueOrderStatus | undefined {
    const e = this.entries.get(clientId);
    return e ? { ...e.status } : undefined;
  }

  limitPrice(clientId: string): number | undefined {
    return this.entries.get(clientId)?.request.limitPrice;
  }

  has(clientId: string): boolean {
    return this.entries.has(clientId);
  }

  /** Orders not finished as far as the ledger knows (pending, working, unknown). */
  open(symbol?: string): VenueOrderStatus[] {
    return [...this.entries.values()]
      .filter((e) => !TERMINAL_STATES.has(e.status.state))
      .filter((e) => !symbol || e.request.symbol === symbol)
      .map((e) => ({ ...e.status }));
  }

  positions(): VenuePosition[] {
    return [...this.units].map(([symbol, units]) => ({ symbol, units, source: "fills" as const }));
  }

  position(symbol: string): number {
    return this.units.get(symbol) ?? 0;
  }

  noteCancelReason(clientId: string, reason: string): void {
    const e = this.entries.get(clientId);
    if (e && e.cancelReason === undefined) e.cancelReason = reason;
  }

  /** The session with the venue was lost: what was not finished is unknown until asked. */
  markUnknown(): string[] {
    const ids: string[] = [];
    for (const e of this.entries.values())
      if (!TERMINAL_STATES.has(e.status.state)) {
        e.status.state = "unknown";
        ids.push(e.request.clientId);
      }
    return ids;
  }

  /** One order went out of sight (its acknowledgement's deadline passed). */
  markUnknownOne(clientId: string): void {
    const e = this.entries.get(clientId);
    if (e && !TERMINAL_STATES.has(e.status.state)) e.status.state = "unknown";
  }

  /** Folds one venue report in; returns the order's status after it (undefined: not ours). */
  apply(r: LedgerReport): VenueOrderStatus | undefined {
    let e = this.entries.get(r.clientId);
    if (!e) {
      if (!r.order) return undefined;
      // The venue's own report of an order placed before a restart: adopted as it stands.
      this.insert({ clientId: r.clientId, ...r.order });
      e = this.entries.get(r.clientId)!;
    }
    const s = e.status;
    const impossible = impossibleReport(r, s.units);
    if (impossible) {
      // A venue's bug or a forged message: booking it would corrupt the position and the cash.
      this.anomalies.push(`${r.clientId}: ${impossible}`);
      if (this.anomalies.length > 100) this.anomalies.shift();
      return { ...s };
    }
    if (r.venueOrderId) s.venueOrderId = r.venueOrderId;
    const finished = TERMINAL_STATES.has(s.state);
    if (r.state !== "rejected" && !e.placed && rank[r.state] >= 1) this.placed(e);
    if (r.filled > s.filled + EPSILON) this.fill(e, r);
    if (!finished && (rank[r.state] > rank[s.state] || rank[s.state] === 0)) {
      // A status answer may say "filled" before the fill's own report: the state follows the
      // quantity booked, never runs ahead of it.
      s.state =
        r.state === "filled" && s.filled < s.units - EPSILON
          ? "partially_filled"
          : r.state === "working" && s.filled > EPSILON
            ? "partially_filled"
            : r.state;
      if (r.reason !== undefined) s.reason = r.reason;
      if (s.state === "cancelled") this.cancelled(e, r.reason);
      if (s.state === "rejected") this.rejected(e, r.reason);
    }
    this.wake(r.clientId);
    return { ...s };
  }

  /** Resolves once the order's status satisfies `until`; rejects past `ms`. */
  waitFor(
    clientId: string,
    until: (s: VenueOrderStatus) => boolean,
    ms: number,
    what: string,
  ): Promise<VenueOrderStatus> {
    const now = this.entries.get(clientId);
    if (now && until(now.status)) return Promise.resolve({ ...now.status });
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        clientId,
        until,
        done: () => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve({ ...this.entries.get(clientId)!.status });
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new VenueError("timeout", `${what}: no answer from the venue within ${ms} ms`));
      }, ms);
      this.waiters.add(waiter);
    });
  }

  private wake(clientId: string): void {
    const s = this.entries.get(clientId)!.status;
    for (const w of [...this.waiters]) if (w.clientId === clientId && w.until(s)) w.done();
  }

  private placed(e: Entry): void {
    e.placed = true;
    const { request: q } = e;
    const data: Extract<ExecutionEvent, { type: "order_placed" }>["data"] = {
      order_id: q.clientId,
      side: q.side,
      kind: q.kind,
      units: q.units,
    };
    if (q.limitPrice !== undefined) data.limit_price = q.limitPrice;
    this.report.event?.({ type: "order_placed", data });
  }

  private fill(e: Entry, r: LedgerReport): void {
    const s = e.status;
    const units = r.filled - s.filled;
    const price =
      r.lastPrice !== undefined && Math.abs((r.lastUnits ?? 0) - units) < EPSILON
        ? r.lastPrice
        : r.averagePrice > 0
          ? (r.filled * r.averagePrice - s.filled * s.averagePrice) / units
          : (r.lastPrice ?? NaN);
    s.filled = r.filled;
    s.averagePrice = r.averagePrice > 0 ? r.averagePrice : price;
    if (s.state !== "filled" && rank[s.state] < 2) s.state = "partially_filled";
    if (s.filled >= s.units - EPSILON && !TERMINAL_STATES.has(s.state)) s.state = "filled";
    const fee = r.fee ?? 0;
    const signed = e.request.side === "buy" ? units : -units;
    this.cash -= signed * price + fee;
    const position = (this.units.get(e.request.symbol) ?? 0) + signed;
    this.units.set(e.request.symbol, position);
    const order: Order = {
      id: e.request.clientId,
      side: e.request.side,
      kind: e.request.kind,
      units: s.units - s.filled,
    };
    this.report.fill?.(signed, price, fee, order);
    const event = this.report.event;
    if (!event) return;
    const data: Extract<ExecutionEvent, { type: "order_filled" }>["data"] = {
      order_id: e.request.clientId,
      side: e.request.side,
      units,
      price,
      fee,
    };
    const left = s.units - s.filled;
    if (left > EPSILON) data.unfilled = left;
    event({ type: "order_filled", data });
    event({ type: "position_changed", data: { symbol: e.request.symbol, units: position } });
  }

  private cancelled(e: Entry, venueReason: string | undefined): void {
    const reason = e.cancelReason ?? (venueReason ? `venue: ${venueReason}` : "venue: cancelled");
    this.report.event?.({
      type: "order_cancelled",
      data: { order_id: e.request.clientId, reason },
    });
  }

  private rejected(e: Entry, reason: string | undefined): void {
    // An order the venue acknowledged and then rejected (rare) was placed; say it was cancelled.
    if (e.placed) return this.cancelled(e, reason ?? "rejected");
    this.report.event?.({
      type: "order_rejected",
      data: {
        side: e.request.side,
        units: e.request.units,
        check: "venue",
        reason: reason ?? "the venue rejected the order",
      },
    });
  }
}
