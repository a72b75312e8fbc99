import ccxt from "ccxt";
import { afterEach, describe, expect, it } from "vitest";
import { Harness, USER, heard } from "./test-support.js";

const API_KEY = "dev-venue-key";
const API_SECRET = "dev-venue-secret";

let h: Harness;
afterEach(async () => {
  await h.close();
});

/** ccxt's own binance class with every spot URL pointed at the facade; nothing else changed. */
function binance(url: string, secret = API_SECRET) {
  const api = `${url}/api/v3`;
  return new ccxt.binance({
    apiKey: API_KEY,
    secret,
    urls: { api: { public: api, private: api, v1: api } },
    // Spot only: the facade is Binance spot's API, not its futures or margin ones.
    options: { fetchMarkets: { types: ["spot"] }, fetchMargins: false, fetchCurrencies: false },
  });
}

async function start() {
  h = new Harness();
  await h.start({ binance: { apiKey: API_KEY, apiSecret: API_SECRET } });
  return binance(h.venue.binanceUrl!);
}

describe("the dev venue's Binance spot facade, driven by ccxt", () => {
  it("lists the venue's symbols as markets and serves the seeded book", async () => {
    const ex = await start();
    const markets = await ex.loadMarkets();
    expect(Object.keys(markets).sort()).toEqual(["BTC/USD", "TEST/USD"]);
    const book = await ex.fetchOrderBook("BTC/USD", 5);
    expect(book.bids.map(([p]) => p)).toEqual(
      h.venue.exchange.depth("BTC-USD", 5).bids.map(([p]) => p),
    );
    expect(book.asks[0]![0]).toBeGreaterThan(book.bids[0]![0]!);
    await expect(ex.fetchOrderBook("ETH/USD")).rejects.toThrow(ccxt.BadSymbol);
  });

  it("places, fills, lists and cancels orders on the same book a FIX client trades on", async () => {
    const ex = await start();
    const fix = await h.loggedOn();
    await ex.loadMarkets();

    const resting = await ex.createOrder("TEST/USD", "limit", "sell", 3, 100);
    expect(resting).toMatchObject({ status: "open", filled: 0, remaining: 3, price: 100 });
    // The same account over FIX hears of the order ccxt placed.
    await heard(
      fix,
      "FIX sees the REST order",
      "8",
      (b) => b.OrderID === resting.id && b.ExecType === "0",
    );

    const taker = await ex.createOrder("TEST/USD", "market", "buy", 2);
    expect(taker).toMatchObject({ status: "closed", filled: 2, average: 100 });
    expect(taker.trades.map((t) => [t.price, t.amount])).toEqual([[100, 2]]);

    const open = await ex.fetchOpenOrders("TEST/USD");
    expect(open.map((o) => [o.id, o.filled, o.remaining, o.status])).toEqual([
      [resting.id, 2, 1, "open"],
    ]);
    expect((await ex.fetchOrder(resting.id!, "TEST/USD")).filled).toBe(2);

    const canceled = await ex.cancelOrder(resting.id!, "TEST/USD");
    expect(canceled.status).toBe("canceled");
    expect(await ex.fetchOpenOrders("TEST/USD")).toEqual([]);
    await expect(ex.cancelOrder("no-such-order", "TEST/USD")).rejects.toThrow(ccxt.OrderNotFound);

    const bars = await ex.fetchOHLCV("TEST/USD", "1m");
    expect(bars).toHaveLength(1);
    expect(bars[0]!.slice(1)).toEqual([100, 100, 100, 100, 2]);
  });

  it("refuses a wrong secret and an order the venue cannot take, as Binance would", async () => {
    await start();
    const wrong = binance(h.venue.binanceUrl!, "not-the-secret");
    await wrong.loadMarkets();
    await expect(wrong.fetchOpenOrders("TEST/USD")).rejects.toThrow(ccxt.AuthenticationError);
    expect(h.venue.exchange.openOrders(USER)).toEqual([]);

    const ex = binance(h.venue.binanceUrl!);
    await ex.loadMarkets();
    await expect(ex.createOrder("TEST/USD", "limit", "buy", 0.5, 1)).resolves.toMatchObject({
      status: "open",
    });
    h.venue.setFaults({ rejectNewOrders: true });
    await expect(ex.createOrder("TEST/USD", "market", "sell", 1)).rejects.toThrow(
      /the venue rejects all new orders \(fault switch\)/,
    );
    await expect(ex.createOrder("TEST/USD", "market", "sell", 1)).rejects.toThrow(
      ccxt.InvalidOrder,
    );
    expect(h.venue.exchange.openOrders(USER)).toHaveLength(1);
  });

  it("hangs with the venue: ccxt's request times out instead of hearing an answer", async () => {
    const ex = await start();
    await ex.loadMarkets();
    h.venue.setFaults({ hang: true });
    ex.timeout = 300;
    await expect(ex.fetchOrderBook("BTC/USD")).rejects.toThrow(ccxt.RequestTimeout);
    h.venue.setFaults({ hang: false });
    ex.timeout = 10_000;
    await expect(ex.fetchOrderBook("BTC/USD")).resolves.toMatchObject({ symbol: "BTC/USD" });
  });
});
