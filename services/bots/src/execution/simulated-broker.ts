import { feeOf, slipped, type Costs } from "./costs.js";
import { emptyObjects, keepOrder } from "./warm-shapes.js";
import type { ExecutionEvent, Order, OrderKind, Side } from "./events.js";
import type { BarVenue } from "./kernel/venue.js";

/** Where a broker starts: a new run's cash, or a resumed session's account and working orders. */
export interface Account {
  cash: number;
  units: number;
  nextOrderId?: number;
  openOrders?: Order[];
  /** Prefix of order ids (a paper session's task id), so ids stay unique per bot. */
  idPrefix?: string;
}

/** How the reason of a cancel for want of volume begins (a venue's cancel, not the bot's). */
export const VOLUME_CANCEL = "volume:";

type OrderPlaced = Extract<ExecutionEvent, { type: "order_placed" }>["data"];
type OrderFilled = Extract<ExecutionEvent, { type: "order_filled" }>["data"];

/** Who hears what a broker does. */
export interface BrokerReport {
  /** Every record, in order. Without it none is built: a backtest that wants only its metrics. */
  event?: (e: ExecutionEvent) => void;
  /**
   * Every fill as it is booked (signed units: a sell is negative): a portfolio keeps its books.
   * `order` is the order filled (its id and side), for a strategy host told of its fills.
   */
  fill?: (signedUnits: number, price: number, fee: number, order: Order) => void;
}

/**
 * The one simulated venue (see `Venue`) of backtests, paper sessions and stress runs: market orders fill at
 * the next bar's open with slippage against the trader, limit orders when the bar trades through
 * their price (at the open when it gaps through); a fee on every fill's notional; cancels; one
 * position per symbol; cash. Every change is reported, in order, to `report`.
 *
 * Volume: with `costs.maxVolumeParticipation` set, the fills of one bar take at most that share
 * of the bar's volume, in placement order. A market order's unfilled rest is cancelled at that
 * bar (a market order does not wait for a better bar: the strategy's next change of target
 * decides anew); a limit order's rest keeps working at its price. A bar whose volume is not
 * reported (0 or not a number) does not limit fills: many data sets carry no volume.
 */
export class SimulatedBroker implements BarVenue {
  // Doubles from the start (NaN, then the account's figures): a field that starts as an integer
  // changes the broker's shape at the first fractional fill, and a long-running process would
  // recompile the order path in its next run.
  cash = NaN;
  units = NaN;
  /** Working orders in placement order: a handful at most, so an array beats a map. */
  private readonly working: Order[];
  private nextId: number;
  private readonly prefix: string;

  constructor(
    readonly symbol: string,
    account: Account,
    private readonly costs: Costs,
    private readonly report: BrokerReport,
  ) {
    this.cash = account.cash;
    this.units = account.units;
    this.nextId = account.nextOrderId ?? 1;
    this.prefix = account.idPrefix ?? "";
    this.working = account.openOrders ? [...account.openOrders] : emptyObjects();
  }

  /** Orders placed and neither filled nor cancelled yet. */
  get openOrders(): readonly Order[] {
    return this.working;
  }

  submit(side: Side, units: number, kind: OrderKind = "market", price?: number): Order {
    const order = new PlacedOrder(this.prefix, this.nextId++, side, kind, units, price);
    keepOrder(order);
    this.working.push(order);
    if (this.report.event) {
      const placed: OrderPlaced = { order_id: order.id, side, kind, units };
      if (price !== undefined) placed[kind === "stop" ? "stop_price" : "limit_price"] = price;
      this.report.event({ type: "order_placed", data: placed });
    }
    return order;
  }

  cancel(id: string, reason: string): void {
    const at = this.working.findIndex((o) => o.id === id);
    if (at < 0) return;
    this.working.splice(at, 1);
    this.report.event?.({ type: "order_cancelled", data: { order_id: id, reason } });
  }

  cancelAll(reason: string): void {
    for (const o of [...this.working]) this.cancel(o.id, reason);
  }

  /** Fills what a new bar allows, in placement order, within its `volume` (see the class). */
  onBar(open: number, high: number, low: number, volume = NaN): void {
    // Called on every bar; kept this small so the engine's hot loop inlines it.
    if (this.working.length !== 0) this.fillWorking(open, high, low, volume);
  }

  private fillWorking(open: number, high: number, low: number, volume: number): void {
    const orders = this.working;
    const share = this.costs.maxVolumeParticipation ?? 0;
    let room = share > 0 && volume > 0 ? share * volume : Infinity;
    const cancelled: { order: Order; reason: string }[] = [];
    let kept = 0;
    for (let i = 0, n = orders.length; i < n; i++) {
      const order = orders[i]!;
      const price = fillPrice(order, open, high, low, this.costs.slippageBps);
      if (Number.isNaN(price)) {
        orders[kept++] = order;
        continue;
      }
      const units = Math.min(order.units, room);
      if (units === order.units) {
        room -= units;
        this.fill(order, price, units);
        continue;
      }
      room = 0;
      if (units > 0) this.fill(order, price, units);
      const rest = order.units - units;
      const why = `bar volume ${volume} times max_volume_participation ${share} left ${rest} of ${order.units} units unfilled`;
      if (order.kind === "limit") {
        order.units = rest;
        orders[kept++] = order;
      } else cancelled.push({ order, reason: `${VOLUME_CANCEL} ${why}` });
    }
    // pop, not `length = kept`: shrinking an array by its length goes through the runtime.
    while (orders.length > kept) orders.pop();
    for (const c of cancelled)
      this.report.event?.({
        type: "order_cancelled",
        data: { order_id: c.order.id, reason: c.reason },
      });
  }

  /** Closes the position at once at `price` (a flatten on a kill switch cannot wait a bar). */
  flattenAt(price: number): void {
    if (this.units === 0) return;
    const order = this.submit(this.units > 0 ? "sell" : "buy", Math.abs(this.units));
    this.working.pop(); // the order just placed: it fills now, not at the next bar
    // Not held to a bar's volume: the flatten of a kill switch must not leave a position behind.
    this.fill(order, slipped(order.side, price, this.costs.slippageBps), order.units);
  }

  /** Books a fill of `units` of an order (all of it unless the bar's volume binds). */
  private fill(order: Order, price: number, units: number): void {
    const fee = feeOf(units, price, this.costs.feeBps);
    const signed = order.side === "buy" ? units : -units;
    this.cash -= signed * price + fee;
    this.units += signed;
    this.report.fill?.(signed, price, fee, order);
    const event = this.report.event;
    if (!event) return;
    const data: OrderFilled = { order_id: order.id, side: order.side, units, price, fee };
    if (units !== order.units) data.unfilled = order.units - units;
    event({ type: "order_filled", data });
    event({ type: "position_changed", data: { symbol: this.symbol, units: this.units } });
  }

  get nextOrderId(): number {
    return this.nextId;
  }
}

/** The price a bar fills `order` at, or NaN when the bar does not reach a limit order's price. */
function fillPrice(
  order: Order,
  open: number,
  high: number,
  low: number,
  slippageBps: number,
): number {
  if (order.kind === "market") return slipped(order.side, open, slippageBps);
  if (order.kind === "stop") {
    // Triggered at the open when the bar opens through the stop, else when its range reaches it;
    // then it is a market order: slipped against the trader from the price it triggered at.
    const stop = order.stopPrice!;
    if (order.side === "buy")
      return open >= stop
        ? slipped("buy", open, slippageBps)
        : high >= stop
          ? slipped("buy", stop, slippageBps)
          : NaN;
    return open <= stop
      ? slipped("sell", open, slippageBps)
      : low <= stop
        ? slipped("sell", stop, slippageBps)
        : NaN;
  }
  const limit = order.limitPrice!;
  if (order.side === "buy") return low <= limit ? Math.min(open, limit) : NaN;
  return high >= limit ? Math.max(open, limit) : NaN;
}

/** An order this broker placed. Its id is spelled out only when asked: a backtest never asks. */
class PlacedOrder implements Order {
  constructor(
    private readonly prefix: string,
    private readonly seq: number,
    readonly side: Side,
    readonly kind: OrderKind,
    /** What is left to fill: a limit order the bar's volume filled in part keeps working. */
    public units: number,
    /** The limit order's limit or the stop order's stop. */
    private readonly price: number | undefined,
  ) {}
  get limitPrice(): number | undefined {
    return this.kind === "limit" ? this.price : undefined;
  }
  get stopPrice(): number | undefined {
    return this.kind === "stop" ? this.price : undefined;
  }
  get id(): string {
    return `${this.prefix}o${this.seq}`;
  }
}
