import type { RunnerEvent } from "./events.js";

export interface Order {
  id: string;
  side: "buy" | "sell";
  kind: "market" | "limit";
  units: number;
  limitPrice?: number;
}

/**
 * A simulated broker for paper trading: market orders fill at the next bar's open with slippage
 * against the trader, limit orders when the bar trades through their price; a fee on every
 * fill's notional; cancels; one position per symbol; cash.
 */
export class PaperBroker {
  cash: number;
  units: number;
  readonly open = new Map<string, Order>();
  private nextId: number;
  private readonly prefix: string;

  constructor(
    readonly symbol: string,
    state: {
      cash: number;
      units: number;
      nextOrderId?: number;
      openOrders?: Order[];
      idPrefix?: string;
    },
    private readonly costs: { feeBps: number; slippageBps: number },
    private readonly emit: (e: RunnerEvent) => void,
  ) {
    this.cash = state.cash;
    this.units = state.units;
    this.nextId = state.nextOrderId ?? 1;
    this.prefix = state.idPrefix ?? "";
    for (const o of state.openOrders ?? []) this.open.set(o.id, o);
  }

  place(
    side: Order["side"],
    units: number,
    kind: Order["kind"] = "market",
    limitPrice?: number,
  ): Order {
    const order: Order = {
      id: `${this.prefix}o${this.nextId++}`,
      side,
      kind,
      units,
      ...(limitPrice !== undefined ? { limitPrice } : {}),
    };
    this.open.set(order.id, order);
    this.emit({
      type: "order_placed",
      data: {
        order_id: order.id,
        side,
        kind,
        units,
        ...(limitPrice !== undefined ? { limit_price: limitPrice } : {}),
      },
    });
    return order;
  }

  cancel(id: string, reason: string): void {
    if (!this.open.delete(id)) return;
    this.emit({ type: "order_cancelled", data: { order_id: id, reason } });
  }

  cancelAll(reason: string): void {
    for (const id of [...this.open.keys()]) this.cancel(id, reason);
  }

  /** Fills what the new bar allows, in order placement order. */
  onBar(bar: { open: number; high: number; low: number }): void {
    for (const order of [...this.open.values()]) {
      if (order.kind === "market") this.fill(order, this.slipped(order.side, bar.open));
      else if (order.side === "buy" && bar.low <= order.limitPrice!)
        this.fill(order, Math.min(bar.open, order.limitPrice!));
      else if (order.side === "sell" && bar.high >= order.limitPrice!)
        this.fill(order, Math.max(bar.open, order.limitPrice!));
    }
  }

  /** Closes the position at once at `price` (a flatten on a kill switch cannot wait a bar). */
  flattenAt(price: number): void {
    if (this.units === 0) return;
    const order = this.place(this.units > 0 ? "sell" : "buy", Math.abs(this.units));
    this.fill(order, this.slipped(order.side, price));
  }

  private slipped(side: Order["side"], price: number): number {
    return (
      price *
      (side === "buy" ? 1 + this.costs.slippageBps / 10_000 : 1 - this.costs.slippageBps / 10_000)
    );
  }

  private fill(order: Order, price: number): void {
    const fee = order.units * price * (this.costs.feeBps / 10_000);
    const signed = order.side === "buy" ? order.units : -order.units;
    this.cash -= signed * price + fee;
    this.units += signed;
    this.open.delete(order.id);
    this.emit({
      type: "order_filled",
      data: { order_id: order.id, side: order.side, units: order.units, price, fee },
    });
    this.emit({ type: "position_changed", data: { symbol: this.symbol, units: this.units } });
  }

  get nextOrderId(): number {
    return this.nextId;
  }
}
