import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Exchange, Execution, OrderStatus, VenueOrder } from "./exchange.js";
import type { FaultSwitches } from "./faults.js";
import { klines, type HistorySeed } from "./klines.js";

/**
 * A small facade of Binance spot's REST API (https://developers.binance.com/docs/binance-spot-api-docs/rest-api)
 * in front of the dev venue's book, so ccxt's own binance class, its URLs pointed here, is the
 * client a test exercises: /api/v3/ping, time, exchangeInfo, depth, trades, klines (the
 * venue's seeded history, then its trades; see klines.ts), account (balances), order (POST, GET, DELETE), openOrders (GET, DELETE). Signed endpoints check
 * X-MBX-APIKEY and the HMAC-SHA256 signature as Binance does; errors come as Binance's
 * {code, msg}, so ccxt raises its own exception classes.
 */
export interface BinanceFacadeOptions {
  exchange: Exchange;
  /** The venue's switches: reject new orders, delay answers, hang (answer nothing). */
  faults: FaultSwitches;
  apiKey: string;
  apiSecret: string;
  /** The venue account the key trades as (the FIX Username, so both see one set of orders). */
  account: string;
  host?: string;
  port?: number;
  /** How far a request's timestamp may be from now, as Binance's default recvWindow. */
  recvWindowMs?: number;
  /** Past bars klines serve before the venue's own trades. */
  history?: readonly HistorySeed[];
  /** Called on each klines request (a test counting a downloader's pages). */
  onKlines?: () => void;
}

export interface BinanceFacade {
  readonly url: string;
  close(): Promise<void>;
}

class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

const statuses: Record<OrderStatus, string> = {
  new: "NEW",
  partially_filled: "PARTIALLY_FILLED",
  filled: "FILLED",
  canceled: "CANCELED",
  rejected: "REJECTED",
};

const intervals: Record<string, number> = {
  "1m": 60_000,
  "3m": 180_000,
  "5m": 300_000,
  "15m": 900_000,
  "30m": 1_800_000,
  "1h": 3_600_000,
  "4h": 14_400_000,
  "1d": 86_400_000,
};

const MAX_BODY = 16 * 1024;

export async function startBinanceFacade(options: BinanceFacadeOptions): Promise<BinanceFacade> {
  const { exchange } = options;
  const host = options.host ?? "127.0.0.1";
  const recvWindow = options.recvWindowMs ?? 5_000;
  /** Binance ids have no separator: BTC-USD is BTCUSD. */
  const bySymbolId = new Map(
    exchange.symbols.map((s) => [s.replace(/[^A-Za-z0-9]/g, "").toUpperCase(), s]),
  );
  const symbolId = (s: string) => s.replace(/[^A-Za-z0-9]/g, "").toUpperCase();

  const symbolOf = (params: URLSearchParams): string => {
    const id = params.get("symbol");
    if (!id)
      throw new ApiError(
        400,
        -1102,
        "Mandatory parameter 'symbol' was not sent, was empty/null, or malformed.",
      );
    const symbol = bySymbolId.get(id);
    if (!symbol) throw new ApiError(400, -1121, "Invalid symbol.");
    return symbol;
  };

  const authenticate = (req: IncomingMessage, raw: string) => {
    const key = String(req.headers["x-mbx-apikey"] ?? "");
    if (!sameSecret(key, options.apiKey))
      throw new ApiError(401, -2015, "Invalid API-key, IP, or permissions for action.");
    const at = raw.lastIndexOf("signature=");
    const signature = at >= 0 ? raw.slice(at + "signature=".length) : "";
    const signed = at > 0 ? raw.slice(0, at - 1) : "";
    const expected = createHmac("sha256", options.apiSecret).update(signed).digest("hex");
    if (!sameSecret(signature, expected))
      throw new ApiError(400, -1022, "Signature for this request is not valid.");
    const params = new URLSearchParams(signed);
    const timestamp = Number(params.get("timestamp"));
    const window = Math.min(Number(params.get("recvWindow") ?? recvWindow), 60_000);
    if (!Number.isFinite(timestamp) || Math.abs(Date.now() - timestamp) > window)
      throw new ApiError(400, -1021, "Timestamp for this request is outside of the recvWindow.");
    return params;
  };

  const orderJson = (o: VenueOrder, fills: Execution[] = []) => ({
    symbol: symbolId(o.symbol),
    orderId: o.orderId,
    orderListId: -1,
    clientOrderId: o.clOrdId,
    transactTime: Date.now(),
    time: Date.now(),
    updateTime: Date.now(),
    price: String(o.price ?? 0),
    origQty: String(o.qty),
    executedQty: String(o.cumQty),
    cummulativeQuoteQty: String(Math.round(o.cumQty * o.avgPx * 1e8) / 1e8),
    status: statuses[o.status],
    timeInForce: "GTC",
    type: o.kind === "limit" ? "LIMIT" : "MARKET",
    side: o.side === "buy" ? "BUY" : "SELL",
    isWorking: o.status === "new" || o.status === "partially_filled",
    fills: fills.map((f) => ({
      price: String(f.lastPx),
      qty: String(f.lastQty),
      commission: "0",
      commissionAsset: symbolId(o.symbol).slice(-3),
      tradeId: f.execId,
    })),
  });

  const findOrder = (params: URLSearchParams): VenueOrder => {
    symbolOf(params);
    const orderId = params.get("orderId");
    const clientId = params.get("origClientOrderId");
    const order = orderId
      ? exchange.orderById(options.account, orderId)
      : clientId
        ? exchange.order(options.account, clientId)
        : undefined;
    if (!order) throw new ApiError(400, -2013, "Order does not exist.");
    return order;
  };

  const routes: Record<
    string,
    (params: URLSearchParams, req: IncomingMessage, raw: string) => unknown
  > = {
    "GET /api/v3/ping": () => ({}),
    "GET /api/v3/time": () => ({ serverTime: Date.now() }),
    "GET /api/v3/exchangeInfo": () => ({
      timezone: "UTC",
      serverTime: Date.now(),
      rateLimits: [],
      exchangeFilters: [],
      symbols: exchange.symbols.map((s) => {
        const [base = s, quote = "USD"] = s.split(/[-/]/);
        return {
          symbol: symbolId(s),
          status: "TRADING",
          baseAsset: base,
          baseAssetPrecision: 8,
          quoteAsset: quote,
          quotePrecision: 8,
          quoteAssetPrecision: 8,
          orderTypes: ["LIMIT", "MARKET"],
          isSpotTradingAllowed: true,
          isMarginTradingAllowed: false,
          permissions: ["SPOT"],
          filters: [
            {
              filterType: "PRICE_FILTER",
              minPrice: "0.01",
              maxPrice: "1000000000",
              tickSize: "0.01",
            },
            {
              filterType: "LOT_SIZE",
              minQty: "0.00000001",
              maxQty: "1000000000",
              stepSize: "0.00000001",
            },
          ],
        };
      }),
    }),
    "GET /api/v3/depth": (params) => {
      const symbol = symbolOf(params);
      const limit = Math.min(Math.max(Number(params.get("limit") ?? 100) || 100, 1), 5000);
      const d = exchange.depth(symbol, limit);
      const side = (levels: Array<[number, number]>) =>
        levels.map(([p, q]) => [String(p), String(q)]);
      return { lastUpdateId: Date.now(), bids: side(d.bids), asks: side(d.asks) };
    },
    "GET /api/v3/trades": (params) => {
      const symbol = symbolOf(params);
      const limit = Math.min(Math.max(Number(params.get("limit") ?? 500) || 500, 1), 1000);
      return exchange.trades
        .filter((t) => t.symbol === symbol)
        .slice(-limit)
        .map((t) => ({
          id: t.id,
          price: String(t.price),
          qty: String(t.qty),
          quoteQty: String(Math.round(t.price * t.qty * 1e8) / 1e8),
          time: t.time.getTime(),
          isBuyerMaker: t.aggressor === "sell",
          isBestMatch: true,
        }));
    },
    "GET /api/v3/account": (_p, req, raw) => {
      authenticate(req, raw);
      return {
        makerCommission: 0,
        takerCommission: 0,
        buyerCommission: 0,
        sellerCommission: 0,
        canTrade: true,
        canWithdraw: false,
        canDeposit: false,
        updateTime: Date.now(),
        accountType: "SPOT",
        balances: balancesOf(exchange, options.account),
        permissions: ["SPOT"],
      };
    },
    "GET /api/v3/klines": (params) => {
      const symbol = symbolOf(params);
      const interval = intervals[params.get("interval") ?? ""];
      if (!interval)
        throw new ApiError(
          400,
          -1120,
          `Invalid interval; known: ${Object.keys(intervals).join(", ")}.`,
        );
      const limit = Math.min(Math.max(Number(params.get("limit") ?? 500) || 500, 1), 1000);
      const start = params.has("startTime") ? Number(params.get("startTime")) : undefined;
      const end = Number(params.get("endTime") ?? NaN);
      options.onKlines?.();
      return klines(exchange, options.history ?? [], {
        symbol,
        interval,
        start: Number.isFinite(start) ? start : undefined,
        end: Number.isFinite(end) ? end : Number.MAX_SAFE_INTEGER,
        limit,
      }).map(([open, o, h, l, c, v, qv, n]) => [
        open,
        String(o),
        String(h),
        String(l),
        String(c),
        String(v),
        open + interval - 1,
        String(qv),
        n,
        "0",
        "0",
        "0",
      ]);
    },
    "POST /api/v3/order": (_p, req, raw) => {
      const params = authenticate(req, raw);
      const symbol = symbolOf(params);
      const side = params.get("side");
      const type = params.get("type");
      if (side !== "BUY" && side !== "SELL")
        throw new ApiError(400, -1102, "Parameter 'side' must be BUY or SELL.");
      if (type !== "LIMIT" && type !== "MARKET")
        throw new ApiError(400, -1116, "Invalid orderType; the dev venue takes LIMIT and MARKET.");
      const clOrdId = params.get("newClientOrderId") || exchange.nextId("C");
      if (options.faults.rejectNewOrders)
        throw new ApiError(400, -2010, "the venue rejects all new orders (fault switch)");
      const fills: Execution[] = [];
      const detach = exchange.onExecution((account, e) => {
        if (account === options.account && e.order.clOrdId === clOrdId) fills.push(e);
      });
      let order: VenueOrder;
      try {
        order = exchange.submit(options.account, {
          clOrdId,
          symbol,
          side: side === "BUY" ? "buy" : "sell",
          kind: type === "LIMIT" ? "limit" : "market",
          qty: Number(params.get("quantity")),
          ...(type === "LIMIT" ? { price: Number(params.get("price")) } : {}),
        });
      } finally {
        detach();
      }
      if (order.status === "rejected") {
        const why = fills.find((e) => e.kind === "rejected")?.text ?? "rejected";
        throw new ApiError(400, -2010, why);
      }
      return orderJson(
        order,
        fills.filter((e) => e.kind === "trade"),
      );
    },
    "GET /api/v3/order": (_p, req, raw) => orderJson(findOrder(authenticate(req, raw))),
    "DELETE /api/v3/order": (_p, req, raw) => {
      const order = findOrder(authenticate(req, raw));
      const result = exchange.cancel(options.account, order.clOrdId, exchange.nextId("C"));
      if ("refused" in result) throw new ApiError(400, -2011, "Unknown order sent.");
      return orderJson(result.order);
    },
    "GET /api/v3/openOrders": (_p, req, raw) => {
      const params = authenticate(req, raw);
      const symbol = params.get("symbol") ? symbolOf(params) : undefined;
      return exchange.openOrders(options.account, symbol).map((o) => orderJson(o));
    },
    "DELETE /api/v3/openOrders": (_p, req, raw) => {
      const params = authenticate(req, raw);
      const symbol = symbolOf(params);
      const open = exchange.openOrders(options.account, symbol);
      exchange.massCancel(options.account, symbol);
      return open.map((o) => orderJson(exchange.orderById(options.account, o.orderId)!));
    },
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const reply = (status: number, body: unknown) => {
      if (res.headersSent) return;
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    const [path = "", query = ""] = (req.url ?? "").split("?", 2);
    const route = routes[`${req.method} ${path}`];
    if (!route)
      return reply(404, {
        code: -1000,
        msg: `The dev venue's Binance facade has no ${req.method} ${path}.`,
      });
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reply(413, { code: -1000, msg: "Request body too large." });
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => {
      // A hung venue holds the request open and never answers; close() lets it go.
      if (options.faults.hang) return;
      const delay = options.faults.delayExecutionReportsMs;
      if (delay > 0) setTimeout(answer, delay).unref();
      else answer();
    });
    const answer = () => {
      const body = Buffer.concat(chunks).toString("utf8");
      // Binance signs the query string and the body together; a client sends one or the other.
      const raw = body ? (query ? `${query}&${body}` : body) : query;
      try {
        reply(200, route(new URLSearchParams(raw), req, raw));
      } catch (e) {
        if (e instanceof ApiError) reply(e.status, { code: e.code, msg: e.message });
        else reply(500, { code: -1000, msg: (e as Error).message });
      }
    };
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * An account's balances as the sum of its fills from zero: the dev venue takes no deposits and
 * checks no credit, so what an account sold short shows as a negative balance. An open order
 * locks what it could still spend: a buy its quote, a sell its base.
 */
function balancesOf(exchange: Exchange, account: string) {
  const assets = new Map<string, { total: number; locked: number }>();
  const asset = (name: string) => {
    let a = assets.get(name);
    if (!a) assets.set(name, (a = { total: 0, locked: 0 }));
    return a;
  };
  for (const o of exchange.ordersOf(account)) {
    const [base = o.symbol, quote = "USD"] = o.symbol.split(/[-/]/);
    const sign = o.side === "buy" ? 1 : -1;
    asset(base).total += sign * o.cumQty;
    asset(quote).total -= sign * o.cumQty * o.avgPx;
    if (o.status === "new" || o.status === "partially_filled") {
      if (o.side === "sell") asset(base).locked += o.leavesQty;
      else asset(quote).locked += o.leavesQty * (o.price ?? 0);
    }
  }
  const round = (n: number) => String(Math.round(n * 1e8) / 1e8);
  return [...assets].map(([name, a]) => ({
    asset: name,
    free: round(a.total - a.locked),
    locked: round(a.locked),
  }));
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
