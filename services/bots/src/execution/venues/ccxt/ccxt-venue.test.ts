import type { DevVenue } from "@svc/dev-venue";
import ccxt from "ccxt";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../../../../../test/support/until.js";
import { Records, USER, counterparty, devVenue } from "../venue-test-support.js";
import { CcxtVenue, type CcxtVenueOptions } from "./ccxt-venue.js";

const API_KEY = "bot-7-key";
const API_SECRET = "bot-7-secret";

let venue: DevVenue | undefined;
const adapters: CcxtVenue[] = [];

afterEach(async () => {
  await Promise.all(adapters.splice(0).map((a) => a.close()));
  await venue?.close();
  venue = undefined;
});

/** ccxt's own binance class, every spot URL pointed at the dev venue's facade. */
function binance(url: string, secret = API_SECRET) {
  const api = `${url}/api/v3`;
  return new ccxt.binance({
    apiKey: API_KEY,
    secret,
    urls: { api: { public: api, private: api, v1: api } },
    options: { fetchMarkets: { types: ["spot"] }, fetchMargins: false, fetchCurrencies: false },
  });
}

async function start(options: Partial<CcxtVenueOptions> & { secret?: string } = {}) {
  venue ??= await devVenue({ apiKey: API_KEY, apiSecret: API_SECRET });
  const url = venue.binanceUrl!;
  const records = new Records();
  const adapter = new CcxtVenue({
    exchange: binance(url, options.secret),
    report: records.report,
    pollMs: 50,
    // Generous for a loaded CI machine: only the hang test wants the freeze soon.
    deadlineMs: 2_000,
    missedPollsToFreeze: 20,
    ...options,
  });
  adapters.push(adapter);
  return { adapter, records };
}

async function connected(options: Partial<CcxtVenueOptions> = {}) {
  const started = await start(options);
  await started.adapter.connect();
  return started;
}

const limit = (clientId: string, side: "buy" | "sell", units: number, price: number) => ({
  clientId,
  symbol: "TEST-USD",
  side,
  units,
  kind: "limit" as const,
  limitPrice: price,
});

describe("the ccxt venue adapter, ccxt's binance class against the dev venue's facade", () => {
  it("places an order, hears its partial fills by polling, and books each once", async () => {
    venue = await devVenue({ apiKey: API_KEY, apiSecret: API_SECRET });
    const { adapter, records } = await connected();
    // The dev venue lists TEST; the facade calls it TEST/USD, the kernel TEST-USD or TEST.
    expect(await adapter.submit(limit("c1", "sell", 3, 100))).toMatchObject({ state: "working" });
    counterparty(venue, "b1", "buy", 1, 100);
    await eventually(
      "a partial fill",
      () => adapter.ledger.get("c1")!.filled,
      (f) => f === 1,
    );
    counterparty(venue, "b2", "buy", 2, 100);
    await eventually(
      "filled",
      () => adapter.ledger.get("c1")!.state,
      (s) => s === "filled",
    );
    // Many polls saw the same order; the fills are booked once each.
    await new Promise((r) => setTimeout(r, 200));
    expect(records.of("order_filled").map((f) => [f.units, f.price])).toEqual([
      [1, 100],
      [2, 100],
    ]);
    expect(await adapter.positions()).toEqual([{ symbol: "TEST-USD", units: -3, source: "fills" }]);
    expect(await adapter.balances()).toEqual(
      expect.arrayContaining([
        { asset: "TEST", free: -3, locked: 0 },
        { asset: "USD", free: 300, locked: 0 },
      ]),
    );
  });

  it("cancels, mass-cancels, and answers a filled order's cancel with its fill", async () => {
    const { adapter, records } = await connected();
    await adapter.submit(limit("a", "buy", 1, 90));
    await adapter.submit(limit("b", "buy", 1, 91));
    await adapter.submit(limit("f", "sell", 1, 99));
    counterparty(venue!, "hit", "buy", 1, 99);
    expect(await adapter.cancel("a", "strategy: cancel")).toMatchObject({ state: "cancelled" });
    expect(await adapter.cancel("f")).toMatchObject({ state: "filled", filled: 1 });
    expect(await adapter.cancelAll("TEST-USD")).toBe(1);
    expect(venue!.exchange.openOrders(USER)).toEqual([]);
    expect(records.of("order_cancelled")).toEqual([
      { order_id: "a", reason: "strategy: cancel" },
      { order_id: "b", reason: "mass cancel" },
    ]);
  });

  it("records the venue's rejection and an unknown symbol with their reasons", async () => {
    const { adapter, records } = await connected();
    venue!.setFaults({ rejectNewOrders: true });
    expect(await adapter.submit(limit("no", "buy", 1, 10))).toMatchObject({
      state: "rejected",
      reason: "the venue rejects all new orders (fault switch)",
    });
    venue!.setFaults({ rejectNewOrders: false });
    expect(
      await adapter.submit({ ...limit("where", "buy", 1, 10), symbol: "NOPE-USD" }),
    ).toMatchObject({ state: "rejected", reason: 'unknown symbol "NOPE-USD"' });
    expect(records.of("order_rejected").map((r) => r.check)).toEqual(["venue", "venue"]);
    await expect(adapter.subscribe("NOPE-USD", () => {})).rejects.toThrow(/unknown symbol/);
  });

  it("an order whose request timed out is unknown, then settled from the venue's answer", async () => {
    const { adapter, records } = await connected({ deadlineMs: 1_000, missedPollsToFreeze: 100 });
    counterparty(venue!, "m", "sell", 2, 100);
    venue!.setFaults({ delayExecutionReportsMs: 1_500 });
    await expect(adapter.submit(limit("late", "buy", 2, 100))).rejects.toMatchObject({
      kind: "timeout",
    });
    expect(adapter.ledger.get("late")!.state).toBe("unknown");
    venue!.setFaults({ delayExecutionReportsMs: 0 });
    // The venue took the order when the delayed request reached it; the poll finds it filled.
    await eventually(
      "settled",
      () => adapter.ledger.get("late")!.state,
      (s) => s === "filled",
    );
    expect(records.filledUnits("late")).toBe(2);
    expect(records.of("order_placed")).toHaveLength(1);
  });

  it("refuses a wrong secret as failed", async () => {
    const { adapter } = await start({ secret: "not the secret" } as Partial<CcxtVenueOptions>);
    await expect(adapter.connect()).rejects.toMatchObject({ kind: "auth" });
    expect(adapter.health.state).toBe("failed");
    await expect(adapter.submit(limit("x", "buy", 1, 1))).rejects.toMatchObject({ kind: "auth" });
  });

  it("reports itself frozen when the venue hangs, and sends nothing while frozen", async () => {
    const { adapter } = await connected({ deadlineMs: 300, missedPollsToFreeze: 2 });
    venue!.setFaults({ hang: true });
    await eventually(
      "frozen",
      () => adapter.health.state,
      (s) => s === "frozen",
    );
    expect(adapter.health.reason).toMatch(/stopped answering: 2 polls in a row/);
    await expect(adapter.submit(limit("late", "buy", 1, 10))).rejects.toMatchObject({
      kind: "frozen",
    });
    venue!.setFaults({ hang: false });
    await adapter.connect();
    expect(adapter.health.state).toBe("connected");
    expect(venue!.exchange.openOrders(USER)).toEqual([]);
  });

  it("polls live trades of a symbol until stopped", async () => {
    const { adapter } = await connected();
    const trades: number[] = [];
    const stop = await adapter.subscribe("TEST-USD", (t) => trades.push(t.price));
    counterparty(venue!, "s", "sell", 1, 42);
    counterparty(venue!, "b", "buy", 1, 42);
    await eventually(
      "a trade",
      () => trades,
      (t) => t.length === 1,
    );
    await stop();
    expect(trades).toEqual([42]);
  });
});
