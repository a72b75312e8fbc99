import { OrderBook, Side as BookSide, type IProcessOrder } from "nodejs-order-book";

export type OrderSide = "buy" | "sell";
export type OrderKind = "limit" | "market";
export type OrderStatus = "new" | "partially_filled" | "filled" | "canceled" | "rejected";
export type ExecKind = "new" | "trade" | "canceled" | "rejected";

export interface VenueOrder {
  readonly orderId: string;
  readonly clOrdId: string;
  readonly account: string;
  readonly symbol: string;
  readonly side: OrderSide;
  readonly kind: OrderKind;
  readonly qty: number;
  readonly price?: number;
  cumQty: number;
  leavesQty: number;
  avgPx: number;
  status: OrderStatus;
}

/** One change to one order, as the owner's ExecutionReport tells it. */
export interface Execution {
  readonly execId: string;
  readonly kind: ExecKind;
  /** A copy of the order after this change. */
  readonly order: VenueOrder;
  readonly lastQty?: number;
  readonly lastPx?: number;
  readonly text?: string;
  /** For a cancel: the ClOrdID of the cancel request, the order's own one being OrigClOrdID. */
  readonly cancelClOrdId?: string;
  readonly transactTime: Date;
}

export interface Trade {
  /** Rising from 1 per venue run (Binance's trade id). */
  readonly id: number;
  readonly symbol: string;
  readonly price: number;
  readonly qty: number;
  readonly aggressor: OrderSide;
  readonly time: Date;
}

export interface NewOrder {
  clOrdId: string;
  symbol: string;
  side: OrderSide;
  kind: OrderKind;
  qty: number;
  price?: number;
}

export interface Depth {
  bids: Array<[price: number, size: number]>;
  asks: Array<[price: number, size: number]>;
}

type Listener<A extends unknown[]> = (...args: A) => void;

/** Quantities are JS numbers; this keeps sums like 0.1 + 0.2 from showing their binary tails. */
const round = (n: number) => Math.round(n * 1e9) / 1e9;
const MAX_QTY = 1e12;
const MAX_PRICE = 1e12;
const MAX_ID = 64;
const MAX_TRADES = 100_000;

/**
 * The venue's books and orders: price-time matching is nodejs-order-book's, one book per symbol;
 * this class keeps what the book does not (whose order, ClOrdID, cumulative quantity, average
 * price) and turns each match into the executions both sides are told about.
 */
export class Exchange {
  private readonly books = new Map<string, OrderBook>();
  private readonly orders = new Map<string, VenueOrder>();
  /** account -> ClOrdID -> orderId, the latest order under that ClOrdID. */
  private readonly byClOrdId = new Map<string, Map<string, string>>();
  private readonly executionListeners = new Set<Listener<[string, Execution]>>();
  private readonly tradeListeners = new Set<Listener<[Trade]>>();
  private readonly bookListeners = new Set<Listener<[string]>>();
  /** The latest trades, oldest first, for bars (klines); bounded so a long run stays small. */
  readonly trades: Trade[] = [];
  private seq = 0;
  private tradeSeq = 0;
  private readonly runId = Date.now().toString(36).toUpperCase();
  /** Set while a batch runs, so book listeners hear once per batch rather than once per order. */
  private changed: Set<string> | null = null;

  constructor(readonly symbols: readonly string[]) {
    for (const s of symbols) this.books.set(s, new OrderBook());
  }

  onExecution(l: Listener<[account: string, execution: Execution]>): () => void {
    this.executionListeners.add(l);
    return () => this.executionListeners.delete(l);
  }
  onTrade(l: Listener<[Trade]>): () => void {
    this.tradeListeners.add(l);
    return () => this.tradeListeners.delete(l);
  }
  onBookChange(l: Listener<[symbol: string]>): () => void {
    this.bookListeners.add(l);
    return () => this.bookListeners.delete(l);
  }

  lists(symbol: string): boolean {
    return this.books.has(symbol);
  }

  /** Runs `fn` with book-change notices held back until it ends (one notice per symbol). */
  batch<T>(fn: () => T): T {
    if (this.changed) return fn();
    this.changed = new Set();
    try {
      return fn();
    } finally {
      const changed = this.changed;
      this.changed = null;
      for (const s of changed) for (const l of this.bookListeners) l(s);
    }
  }

  /** Validates, matches and rests (limit) or cancels the remainder (market); every step is told. */
  submit(account: string, req: NewOrder): VenueOrder {
    return this.batch(() => this.submitNow(account, req));
  }

  /** Refuses an order without looking at the book (a fault switch, a risk check). */
  reject(account: string, req: NewOrder, text: string): VenueOrder {
    const order = this.newOrder(account, req);
    order.status = "rejected";
    order.leavesQty = 0;
    this.emit(account, "rejected", order, { text });
    return order;
  }

  private submitNow(account: string, req: NewOrder): VenueOrder {
    const invalid = this.validate(account, req);
    if (invalid) return this.reject(account, req, invalid);
    const order = this.newOrder(account, req);
    this.orders.set(order.orderId, order);
    this.clOrdIds(account).set(order.clOrdId, order.orderId);
    this.emit(account, "new", order);

    const book = this.books.get(req.symbol)!;
    const side = req.side === "buy" ? BookSide.BUY : BookSide.SELL;
    const result =
      req.kind === "limit"
        ? book.limit({ id: order.orderId, side, size: req.qty, price: req.price! })
        : book.market({ side, size: req.qty });
    if (result.err) {
      // Validated above, so the book refusing is a bug of ours; the client still hears why.
      order.status = "rejected";
      order.leavesQty = 0;
      this.emit(account, "rejected", order, { text: result.err.message });
      return order;
    }
    this.applyFills(order, result);
    if (order.kind === "market" && order.leavesQty > 0) {
      order.status = "canceled";
      const left = order.leavesQty;
      order.leavesQty = 0;
      this.emit(account, "canceled", order, {
        text: `market order: no liquidity left for ${left}`,
      });
    }
    this.touched(req.symbol);
    return order;
  }

  /**
   * The book reports whole orders done and the one order partly done, not trades; the trades
   * are those makers' fills in matching order, the quantity of each being what it had left
   * (done) or what the book says it took (partial).
   */
  private applyFills(taker: VenueOrder, result: IProcessOrder): void {
    const fills: Array<{ maker: VenueOrder; qty: number }> = [];
    for (const done of result.done) {
      if (done.id === taker.orderId) continue;
      const maker = this.orders.get(done.id);
      if (maker) fills.push({ maker, qty: maker.leavesQty });
    }
    if (result.partial && result.partial.id !== taker.orderId) {
      const maker = this.orders.get(result.partial.id);
      if (maker) fills.push({ maker, qty: result.partialQuantityProcessed });
    }
    for (const { maker, qty } of fills) {
      const price = maker.price!;
      this.fill(taker, qty, price);
      this.fill(maker, qty, price);
      const trade = {
        id: ++this.tradeSeq,
        symbol: taker.symbol,
        price,
        qty,
        aggressor: taker.side,
        time: new Date(),
      };
      this.trades.push(trade);
      if (this.trades.length > MAX_TRADES) this.trades.splice(0, this.trades.length - MAX_TRADES);
      for (const l of this.tradeListeners) l(trade);
    }
  }

  private fill(order: VenueOrder, qty: number, price: number): void {
    const cum = round(order.cumQty + qty);
    order.avgPx = round((order.avgPx * order.cumQty + price * qty) / cum);
    order.cumQty = cum;
    order.leavesQty = round(order.qty - cum);
    order.status = order.leavesQty <= 0 ? "filled" : "partially_filled";
    if (order.status === "filled") {
      order.leavesQty = 0;
      if (order.account === LIQUIDITY_ACCOUNT) this.forget(order);
    }
    this.emit(order.account, "trade", order, { lastQty: qty, lastPx: price });
  }

  /** Cancels the open order `origClOrdId` of `account`; says why not when it cannot. */
  cancel(
    account: string,
    origClOrdId: string,
    cancelClOrdId: string,
  ): { order: VenueOrder } | { refused: "unknown" | "too_late"; order?: VenueOrder } {
    const orderId = this.clOrdIds(account).get(origClOrdId);
    const order = orderId ? this.orders.get(orderId) : undefined;
    if (!order) return { refused: "unknown" };
    if (!isOpen(order)) return { refused: "too_late", order: { ...order } };
    this.batch(() => this.cancelNow(order, cancelClOrdId));
    return { order: { ...order } };
  }

  /** Cancels every open order of `account` (of one symbol when given); returns how many. */
  massCancel(account: string, symbol?: string, cancelClOrdId?: string): number {
    return this.batch(() => {
      const open = this.openOrders(account, symbol);
      for (const o of open) this.cancelNow(this.orders.get(o.orderId)!, cancelClOrdId);
      return open.length;
    });
  }

  private cancelNow(order: VenueOrder, cancelClOrdId?: string): void {
    this.books.get(order.symbol)!.cancel(order.orderId);
    order.status = "canceled";
    order.leavesQty = 0;
    this.touched(order.symbol);
    if (order.account === LIQUIDITY_ACCOUNT) this.forget(order);
    this.emit(order.account, "canceled", order, cancelClOrdId ? { cancelClOrdId } : {});
  }

  order(account: string, clOrdId: string): VenueOrder | undefined {
    const orderId = this.clOrdIds(account).get(clOrdId);
    const order = orderId ? this.orders.get(orderId) : undefined;
    return order ? { ...order } : undefined;
  }

  /** The order `orderId` when `account` owns it. */
  orderById(account: string, orderId: string): VenueOrder | undefined {
    const order = this.orders.get(orderId);
    return order && order.account === account ? { ...order } : undefined;
  }

  /** Every order of `account` the venue still keeps, open or done (for its balances). */
  ordersOf(account: string): VenueOrder[] {
    return [...this.clOrdIds(account).values()]
      .map((id) => this.orders.get(id))
      .filter((o): o is VenueOrder => !!o)
      .map((o) => ({ ...o }));
  }

  /** The net quantity `account` holds per symbol: the sum of its fills, buys less sells. */
  positions(account: string): Array<{ symbol: string; qty: number }> {
    const net = new Map<string, number>();
    for (const o of this.ordersOf(account))
      net.set(
        o.symbol,
        round((net.get(o.symbol) ?? 0) + (o.side === "buy" ? o.cumQty : -o.cumQty)),
      );
    return [...net].filter(([, qty]) => qty !== 0).map(([symbol, qty]) => ({ symbol, qty }));
  }

  openOrders(account: string, symbol?: string): VenueOrder[] {
    const ids = [...this.clOrdIds(account).values()];
    return ids
      .map((id) => this.orders.get(id))
      .filter((o): o is VenueOrder => !!o && isOpen(o) && (!symbol || o.symbol === symbol))
      .map((o) => ({ ...o }));
  }

  depth(symbol: string, levels = 0): Depth {
    const book = this.books.get(symbol);
    if (!book) return { bids: [], asks: [] };
    // Both sides come best first: asks lowest, bids highest.
    const [asks, bids] = book.depth();
    return levels > 0
      ? { bids: bids.slice(0, levels), asks: asks.slice(0, levels) }
      : { bids, asks };
  }

  private validate(account: string, req: NewOrder): string | null {
    if (!this.books.has(req.symbol)) return `unknown symbol ${JSON.stringify(req.symbol)}`;
    if (!req.clOrdId || req.clOrdId.length > MAX_ID) return `ClOrdID must be 1..${MAX_ID} chars`;
    const previous = this.clOrdIds(account).get(req.clOrdId);
    if (previous && isOpen(this.orders.get(previous)!))
      return `duplicate ClOrdID ${req.clOrdId}: an order under it is still open`;
    if (!(Number.isFinite(req.qty) && req.qty > 0 && req.qty <= MAX_QTY))
      return `OrderQty must be a number in (0, ${MAX_QTY}]`;
    if (
      req.kind === "limit" &&
      !(Number.isFinite(req.price) && req.price! > 0 && req.price! <= MAX_PRICE)
    )
      return `a limit order needs a Price in (0, ${MAX_PRICE}]`;
    return null;
  }

  private newOrder(account: string, req: NewOrder): VenueOrder {
    return {
      orderId: this.nextId("O"),
      clOrdId: req.clOrdId,
      account,
      symbol: req.symbol,
      side: req.side,
      kind: req.kind,
      qty: req.qty,
      ...(req.kind === "limit" && req.price !== undefined ? { price: req.price } : {}),
      cumQty: 0,
      leavesQty: req.qty,
      avgPx: 0,
      status: "new",
    };
  }

  private emit(
    account: string,
    kind: ExecKind,
    order: VenueOrder,
    extra: Partial<Pick<Execution, "lastQty" | "lastPx" | "text" | "cancelClOrdId">> = {},
  ): void {
    if (this.executionListeners.size === 0) return;
    const execution: Execution = {
      execId: this.nextId("E"),
      kind,
      order: { ...order },
      ...extra,
      transactTime: new Date(),
    };
    for (const l of this.executionListeners) l(account, execution);
  }

  private touched(symbol: string): void {
    if (this.changed) this.changed.add(symbol);
    else for (const l of this.bookListeners) l(symbol);
  }

  /** Liquidity orders churn at every step; keeping them would grow without end. */
  private forget(order: VenueOrder): void {
    this.orders.delete(order.orderId);
    this.clOrdIds(order.account).delete(order.clOrdId);
  }

  private clOrdIds(account: string): Map<string, string> {
    let m = this.byClOrdId.get(account);
    if (!m) this.byClOrdId.set(account, (m = new Map()));
    return m;
  }

  nextId(prefix: string): string {
    return `${prefix}${this.runId}-${++this.seq}`;
  }
}

/** The account the seeded liquidity trades under; no FIX user can log on as it. */
export const LIQUIDITY_ACCOUNT = "\u0000liquidity";

export function isOpen(o: VenueOrder): boolean {
  return o.status === "new" || o.status === "partially_filled";
}
