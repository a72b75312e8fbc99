import type { Order, OrderKind, Side } from "../events.js";
import type { LiveVenue } from "../kernel/live-venue.js";
import type { Venue } from "../kernel/venue.js";
import type { OrderLedger } from "./order-ledger.js";

/** A live adapter with the ledger it books into (both adapters here have one). */
export type LedgerVenue = LiveVenue & { readonly ledger: OrderLedger };

/**
 * A live venue behind the kernel's synchronous `Venue`, so the order pipeline (sizing, pre-trade
 * checks) sends to FIX or ccxt exactly as it sends to the simulated broker. `submit` hands the
 * order to the adapter and answers at once with the order as pending: its acknowledgement, fills
 * and cancels arrive later as the adapter's records. `cash`, `units` and `openOrders` are the
 * ledger's, so an order still unacknowledged counts as open and the pipeline waits for it, as it
 * waits for a limit order the simulated broker has not filled.
 *
 * A request the adapter could not finish (a deadline, a frozen venue) goes to `onError`: the
 * order stays in the ledger as unknown until a status answer settles it, never silently gone.
 */
export class PipelineVenue implements Venue {
  private next = 1;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(
    readonly symbol: string,
    private readonly live: LedgerVenue,
    private readonly options: {
      /** Prefix of order ids (the bot's run), so ClOrdIDs stay unique per account. */
      idPrefix?: string;
      onError?: (error: Error, orderId: string) => void;
    } = {},
  ) {}

  get cash(): number {
    return this.live.ledger.cash;
  }

  get units(): number {
    return this.live.ledger.position(this.symbol);
  }

  get openOrders(): readonly Order[] {
    return this.live.ledger.open(this.symbol).map((s) => ({
      id: s.clientId,
      side: s.side,
      kind: s.kind,
      units: s.units - s.filled,
      ...(this.live.ledger.limitPrice(s.clientId) !== undefined
        ? { limitPrice: this.live.ledger.limitPrice(s.clientId)! }
        : {}),
    }));
  }

  submit(side: Side, units: number, kind: OrderKind = "market", limitPrice?: number): Order {
    const id = `${this.options.idPrefix ?? ""}o${this.next++}`;
    const order: Order = {
      id,
      side,
      kind,
      units,
      ...(limitPrice !== undefined ? { limitPrice } : {}),
    };
    this.track(
      id,
      this.live.submit({
        clientId: id,
        symbol: this.symbol,
        side,
        units,
        kind,
        ...(limitPrice !== undefined ? { limitPrice } : {}),
      }),
    );
    return order;
  }

  cancel(orderId: string, reason: string): void {
    if (!this.live.ledger.has(orderId)) return;
    this.track(orderId, this.live.cancel(orderId, reason));
  }

  cancelAll(reason: string): void {
    for (const o of this.openOrders) this.cancel(o.id, reason);
  }

  /** Resolves when every request sent so far has its answer or its error. */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private track(orderId: string, request: Promise<unknown>): void {
    const p = request.catch((e: Error) => this.options.onError?.(e, orderId));
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }
}
