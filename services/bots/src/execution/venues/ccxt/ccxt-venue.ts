import ccxt, { type Exchange, type Market, type Order as CcxtOrder } from "ccxt";
import {
  TERMINAL_STATES,
  VenueError,
  type LiveVenue,
  type VenueBalance,
  type VenueCapabilities,
  type VenueHealth,
  type VenueOrderRequest,
  type VenueOrderState,
  type VenueOrderStatus,
  type VenuePosition,
  type VenueTrade,
} from "../../kernel/live-venue.js";
import type { VenueReport } from "../../kernel/venue.js";
import { OrderLedger, type LedgerReport } from "../order-ledger.js";

export interface CcxtVenueOptions {
  /**
   * A ccxt exchange with its keys (and, for a testnet, `setSandboxMode(true)` or its URLs); the
   * adapter sets its request timeout to `deadlineMs`.
   */
  exchange: Exchange;
  report: VenueReport;
  startCash?: number;
  /** How often open orders are polled (the venue's REST API pushes nothing). */
  pollMs?: number;
  /** Each request's deadline. */
  deadlineMs?: number;
  /** Polls in a row that get no answer before the adapter reports itself frozen. */
  missedPollsToFreeze?: number;
}

export const CCXT_CAPABILITIES: VenueCapabilities = {
  orderKinds: ["market", "limit"],
  massCancel: "venue",
  massStatus: true,
  positions: "fills",
  balances: "venue",
  marketData: "poll",
  cannot: [
    "no websocket: order updates and trades are polled (the dev venue's Binance facade serves no streams, so ccxt's watch* methods have nothing to talk to)",
    "stop orders, TimeInForce and order replace are not sent",
    "open orders are polled per symbol the adapter has an order open on; orders placed by others on the same keys are seen at connect, by openOrders(), or by a mass cancel",
    "mass cancel is per symbol (Binance's DELETE openOrders needs one): cancelAll() without a symbol cancels the symbols with orders it knows of or the venue lists as open",
    "positions are summed from the fills this adapter booked; balances() are the venue's",
    "an order whose request timed out stays unknown until a status answer settles it; one the venue never received is settled as rejected only after twice the deadline",
  ],
};

/** ccxt's unified status onto the kernel's order states. */
function stateOf(o: CcxtOrder): VenueOrderState {
  switch (o.status) {
    case "open":
    case "canceling":
      return (o.filled ?? 0) > 0 ? "partially_filled" : "working";
    case "closed":
      return "filled";
    case "canceled":
    case "expired":
      return "cancelled";
    case "rejected":
      return "rejected";
    default:
      return "unknown";
  }
}

/** The exchange's own words from a ccxt error ("binance {"code":-2010,"msg":"..."}"). */
function venueWords(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  const json = text.indexOf("{");
  if (json >= 0)
    try {
      const msg = (JSON.parse(text.slice(json)) as { msg?: unknown }).msg;
      if (typeof msg === "string") return msg;
    } catch {
      // not JSON: the whole message is the reason
    }
  return text;
}

const isNetwork = (e: unknown) => e instanceof ccxt.NetworkError;
const isAuth = (e: unknown) =>
  e instanceof ccxt.AuthenticationError ||
  e instanceof ccxt.PermissionDenied ||
  /"code":-2015/.test(String((e as Error)?.message));

/**
 * The `ccxt` venue: any exchange ccxt speaks, through its unified REST methods (createOrder,
 * cancelOrder, cancelAllOrders, fetchOrder, fetchOpenOrders, fetchBalance, fetchTrades). Order
 * updates are polled and folded into an OrderLedger, so the same fill seen by many polls, by a
 * late answer to createOrder and by a status request is booked once.
 *
 * Faults: a request past its deadline leaves its order unknown until a poll or status request
 * settles it; polls that go unanswered `missedPollsToFreeze` times in a row freeze the adapter
 * (nothing sent until `connect` succeeds again); refused keys are `failed`.
 */
export class CcxtVenue implements LiveVenue {
  readonly name = "ccxt";
  readonly capabilities = CCXT_CAPABILITIES;
  readonly ledger: OrderLedger;
  private readonly ex: Exchange;
  private state: VenueHealth = { state: "idle", since: new Date() };
  private readonly listeners = new Set<(h: VenueHealth) => void>();
  private readonly unknownSince = new Map<string, number>();
  private readonly fees = new Map<string, number>();
  private poller: NodeJS.Timeout | null = null;
  private missed = 0;
  private closed = false;
  private readonly pollMs: number;
  private readonly deadlineMs: number;
  private readonly missedToFreeze: number;

  constructor(options: CcxtVenueOptions) {
    this.ex = options.exchange;
    this.ledger = new OrderLedger(options.report, options.startCash ?? 0);
    this.pollMs = options.pollMs ?? 1_000;
    this.deadlineMs = options.deadlineMs ?? 5_000;
    this.missedToFreeze = options.missedPollsToFreeze ?? 3;
    this.ex.timeout = this.deadlineMs;
    // Polling every open order of the account is what this adapter does; ccxt warns of its cost.
    this.ex.options["warnOnFetchOpenOrdersWithoutSymbol"] = false;
  }

  get health(): VenueHealth {
    return { ...this.state };
  }

  onHealth(listener: (h: VenueHealth) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async connect(): Promise<void> {
    if (this.closed) throw new VenueError("disconnected", "the adapter is closed");
    this.setHealth("connecting");
    try {
      await this.ex.loadMarkets(true);
      // A signed call proves the keys before anything is sent.
      await this.openOrders();
    } catch (e) {
      if (isAuth(e)) {
        this.setHealth("failed", `the venue refused the keys: ${venueWords(e)}`);
        throw new VenueError("auth", `the venue refused the keys: ${venueWords(e)}`);
      }
      this.setHealth("disconnected", venueWords(e));
      throw new VenueError(isNetwork(e) ? "timeout" : "disconnected", venueWords(e));
    }
    this.missed = 0;
    this.setHealth("connected");
    this.schedulePoll();
  }

  async submit(order: VenueOrderRequest): Promise<VenueOrderStatus> {
    this.mustBeConnected();
    if (order.kind !== "market" && order.kind !== "limit")
      throw new VenueError("unsupported", "the ccxt venue sends market and limit orders only");
    this.ledger.add(order);
    const market = this.market(order.symbol);
    if (!market)
      return this.reject(order.clientId, `unknown symbol ${JSON.stringify(order.symbol)}`);
    try {
      const placed = await this.ex.createOrder(
        market.symbol,
        order.kind,
        order.side,
        order.units,
        order.kind === "limit" ? order.limitPrice : undefined,
        { newClientOrderId: order.clientId },
      );
      return this.apply(placed, order.clientId) ?? this.ledger.get(order.clientId)!;
    } catch (e) {
      if (isNetwork(e)) {
        // The venue may have the order: a poll or status request settles it.
        this.ledger.markUnknownOne(order.clientId);
        this.unknownSince.set(order.clientId, Date.now());
        throw new VenueError("timeout", `order ${order.clientId}: ${venueWords(e)}`);
      }
      if (isAuth(e)) this.setHealth("failed", `the venue refused the keys: ${venueWords(e)}`);
      return this.reject(order.clientId, venueWords(e));
    }
  }

  async cancel(clientId: string, reason = "cancel requested"): Promise<VenueOrderStatus> {
    this.mustBeConnected();
    const known = this.ledger.get(clientId);
    if (!known)
      throw new VenueError("rejected", `no order ${clientId} was sent through this venue`);
    if (TERMINAL_STATES.has(known.state)) return known;
    this.ledger.noteCancelReason(clientId, reason);
    try {
      const o = await this.ex.cancelOrder("", this.market(known.symbol)!.symbol, {
        origClientOrderId: clientId,
      });
      const applied = this.apply(o, clientId);
      if (applied && TERMINAL_STATES.has(applied.state)) return applied;
    } catch (e) {
      if (isNetwork(e)) throw new VenueError("timeout", `cancel of ${clientId}: ${venueWords(e)}`);
      // Refused: already done (filled) or unknown; the venue's status says which.
    }
    return this.status(clientId);
  }

  async cancelAll(symbol?: string): Promise<number> {
    this.mustBeConnected();
    const symbols = symbol
      ? [symbol]
      : [
          ...new Set([
            ...this.ledger.open().map((s) => s.symbol),
            ...(await this.openOrders()).map((s) => s.symbol),
          ]),
        ];
    let count = 0;
    for (const s of symbols) {
      const market = this.market(s);
      if (!market) throw new VenueError("rejected", `unknown symbol ${JSON.stringify(s)}`);
      for (const o of this.ledger.open(s)) this.ledger.noteCancelReason(o.clientId, "mass cancel");
      const cancelled = (await this.ex.cancelAllOrders(market.symbol)) as CcxtOrder[];
      for (const o of cancelled) if (this.apply(o)?.state === "cancelled") count++;
    }
    return count;
  }

  async status(clientId: string): Promise<VenueOrderStatus> {
    this.mustBeConnected();
    const known = this.ledger.get(clientId);
    if (!known)
      throw new VenueError("rejected", `no order ${clientId} was sent through this venue`);
    try {
      const o = await this.ex.fetchOrder("", this.market(known.symbol)!.symbol, {
        origClientOrderId: clientId,
      });
      this.unknownSince.delete(clientId);
      return this.apply(o, clientId)!;
    } catch (e) {
      if (e instanceof ccxt.OrderNotFound)
        return this.reject(clientId, `the venue has no order ${clientId}`);
      throw new VenueError(isNetwork(e) ? "timeout" : "rejected", venueWords(e));
    }
  }

  async openOrders(symbol?: string): Promise<VenueOrderStatus[]> {
    const market = symbol ? this.market(symbol) : undefined;
    if (symbol && !market) throw new VenueError("rejected", `unknown symbol ${symbol}`);
    const open = await this.ex.fetchOpenOrders(market?.symbol);
    return open.map((o) => this.apply(o)).filter((s): s is VenueOrderStatus => !!s);
  }

  positions(): Promise<VenuePosition[]> {
    return Promise.resolve(this.ledger.positions());
  }

  async balances(): Promise<VenueBalance[]> {
    this.mustBeConnected();
    const b = await this.ex.fetchBalance();
    const free = b.free as unknown as Record<string, number | undefined>;
    const used = b.used as unknown as Record<string, number | undefined>;
    return Object.keys(b.total ?? {}).map((asset) => ({
      asset,
      free: free[asset] ?? 0,
      locked: used[asset] ?? 0,
    }));
  }

  async subscribe(symbol: string, onTrade: (t: VenueTrade) => void): Promise<() => Promise<void>> {
    this.mustBeConnected();
    const market = this.market(symbol);
    if (!market) throw new VenueError("rejected", `unknown symbol ${JSON.stringify(symbol)}`);
    const recent = () =>
      this.ex.fetchTrades(market.symbol, undefined, 1000, { fetchTradesMethod: "publicGetTrades" });
    let seen = Math.max(0, ...(await recent()).map((t) => Number(t.id)));
    let stopped = false;
    let timer: NodeJS.Timeout | null = null;
    const poll = async () => {
      try {
        for (const t of await recent()) {
          if (stopped || !(Number(t.id) > seen)) continue;
          seen = Number(t.id);
          onTrade({
            symbol,
            price: t.price ?? NaN,
            units: t.amount ?? 0,
            time: new Date(t.timestamp ?? 0),
          });
        }
      } catch {
        // A missed poll of trades: the order poll is what judges the venue's health.
      }
      if (!stopped) timer = setTimeout(() => void poll(), this.pollMs);
    };
    timer = setTimeout(() => void poll(), this.pollMs);
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      return Promise.resolve();
    };
  }

  close(): Promise<void> {
    this.closed = true;
    if (this.poller) clearTimeout(this.poller);
    this.poller = null;
    this.setHealth("closed");
    return Promise.resolve();
  }

  // --- polling ---

  private schedulePoll(): void {
    if (this.poller) clearTimeout(this.poller);
    this.poller = setTimeout(() => void this.poll(), this.pollMs);
  }

  /**
   * The venue's open orders; an order the ledger thinks open but the venue does not list has
   * finished (or never arrived): its own status says which.
   */
  private async poll(): Promise<void> {
    if (this.closed || this.state.state !== "connected") return;
    try {
      // Per symbol with an order open (an all-symbols query weighs many times more in an
      // exchange's rate limits); with none, the venue's clock is the heartbeat.
      const symbols = [...new Set(this.ledger.open().map((s) => s.symbol))];
      if (symbols.length === 0) await this.ex.fetchTime();
      const listed = new Set<string>();
      for (const symbol of symbols)
        for (const s of await this.openOrders(symbol)) listed.add(s.clientId);
      for (const s of this.ledger.open()) {
        if (s.state === "pending" || listed.has(s.clientId)) continue;
        const since = this.unknownSince.get(s.clientId);
        // A request that timed out may still reach the venue: give it time before "never arrived".
        if (since !== undefined && Date.now() - since < 2 * this.deadlineMs) {
          const o = await this.ex
            .fetchOrder("", this.market(s.symbol)!.symbol, { origClientOrderId: s.clientId })
            .catch(() => null);
          if (o) this.apply(o, s.clientId);
          continue;
        }
        await this.status(s.clientId);
      }
      this.missed = 0;
    } catch (e) {
      if (isNetwork(e) && ++this.missed >= this.missedToFreeze)
        return this.setHealth(
          "frozen",
          `the venue stopped answering: ${this.missed} polls in a row without an answer (${venueWords(e)})`,
        );
      if (isAuth(e))
        return this.setHealth("failed", `the venue refused the keys: ${venueWords(e)}`);
    }
    if (!this.closed && this.state.state === "connected") this.schedulePoll();
  }

  // --- mapping ---

  private apply(o: CcxtOrder, clientId?: string): VenueOrderStatus | undefined {
    const id = clientId ?? o.clientOrderId;
    if (!id) return undefined;
    const report: LedgerReport = {
      clientId: id,
      venueOrderId: o.id,
      state: stateOf(o),
      filled: o.filled ?? 0,
      averagePrice: o.average ?? (o.filled ? (o.cost ?? 0) / o.filled : 0),
    };
    const market: Market | undefined = o.symbol ? this.ex.markets?.[o.symbol] : undefined;
    const fee = o.fee?.cost;
    if (fee !== undefined && o.fee?.currency === market?.quote) {
      report.fee = Math.max(0, fee - (this.fees.get(id) ?? 0));
      this.fees.set(id, fee);
    }
    if (market && o.amount)
      report.order = {
        symbol: `${market.base}-${market.quote}`,
        side: o.side === "sell" ? "sell" : "buy",
        kind: o.type === "market" ? "market" : "limit",
        units: o.amount,
        ...(o.price ? { limitPrice: o.price } : {}),
      };
    return this.ledger.apply(report);
  }

  private reject(clientId: string, reason: string): VenueOrderStatus {
    this.unknownSince.delete(clientId);
    return this.ledger.apply({ clientId, state: "rejected", filled: 0, averagePrice: 0, reason })!;
  }

  /** The kernel's symbol (BTC-USD) as the exchange's market (BTC/USD, id BTCUSD). */
  private market(symbol: string): Market | undefined {
    const markets = this.ex.markets ?? {};
    const direct = markets[symbol] ?? markets[symbol.replace("-", "/")];
    if (direct) return direct;
    const id = symbol.replace(/[^A-Za-z0-9]/g, "").toUpperCase();
    return Object.values(markets).find((m) => m?.id === id);
  }

  private mustBeConnected(): void {
    const s = this.state;
    if (s.state === "connected") return;
    throw new VenueError(
      s.state === "frozen" ? "frozen" : s.state === "failed" ? "auth" : "disconnected",
      `the ccxt venue is ${s.state}${s.reason ? `: ${s.reason}` : ""}`,
    );
  }

  private setHealth(state: VenueHealth["state"], reason?: string): void {
    this.state = { state, since: new Date(), ...(reason ? { reason } : {}) };
    for (const l of this.listeners) l(this.health);
  }
}
