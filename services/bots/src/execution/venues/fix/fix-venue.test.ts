import type { DevVenue } from "@svc/dev-venue";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../../../../../test/support/until.js";
import type { VenueHealth } from "../../kernel/live-venue.js";
import { PASSWORD, Records, USER, counterparty, devVenue } from "../venue-test-support.js";
import { FixVenue, type FixVenueOptions } from "./fix-venue.js";

let venue: DevVenue | undefined;
const adapters: FixVenue[] = [];

afterEach(async () => {
  await Promise.all(adapters.splice(0).map((a) => a.close()));
  await venue?.close();
  venue = undefined;
});

async function start(options: Partial<FixVenueOptions> = {}) {
  venue ??= await devVenue();
  const port = venue.port;
  const records = new Records();
  const fix = new FixVenue({
    port,
    username: USER,
    password: PASSWORD,
    heartbeatSeconds: 1,
    reconnectDelayMs: 100,
    report: records.report,
    ...options,
  });
  adapters.push(fix);
  return { fix, records };
}

async function connected(options: Partial<FixVenueOptions> = {}) {
  const started = await start(options);
  await started.fix.connect();
  return started;
}

const limit = (clientId: string, side: "buy" | "sell", units: number, price: number) => ({
  clientId,
  symbol: "TEST",
  side,
  units,
  kind: "limit" as const,
  limitPrice: price,
});

describe("the fix venue adapter, over real FIX sessions with the dev venue", () => {
  it("logs on, has orders acknowledged, and books partial fills once each", async () => {
    venue = await devVenue();
    const { fix, records } = await connected();
    expect(fix.health.state).toBe("connected");

    const ack = await fix.submit(limit("o1", "sell", 3, 100));
    expect(ack).toMatchObject({ state: "working", filled: 0, units: 3 });
    expect(ack.venueOrderId).toMatch(/^O/);

    counterparty(venue!, "c1", "buy", 1, 100);
    await eventually(
      "first fill",
      () => fix.ledger.get("o1")!.filled,
      (f) => f === 1,
    );
    expect(fix.ledger.get("o1")!.state).toBe("partially_filled");
    counterparty(venue!, "c2", "buy", 5, 101);
    await eventually(
      "filled",
      () => fix.ledger.get("o1")!.state,
      (s) => s === "filled",
    );

    expect(records.events.map((e) => e.type)).toEqual([
      "order_placed",
      "order_filled",
      "position_changed",
      "order_filled",
      "position_changed",
    ]);
    expect(records.of("order_filled")).toEqual([
      { order_id: "o1", side: "sell", units: 1, price: 100, fee: 0, unfilled: 2 },
      { order_id: "o1", side: "sell", units: 2, price: 100, fee: 0 },
    ]);
    // The venue's own positions (RequestForPositions) agree with the fills booked.
    expect(fix.ledger.positions()).toEqual([{ symbol: "TEST", units: -3, source: "fills" }]);
    expect(await fix.positions()).toEqual([{ symbol: "TEST", units: -3, source: "venue" }]);
    expect(fix.ledger.cash).toBe(300);
    // The venue agrees: the order is done, not open.
    expect(await fix.openOrders()).toEqual([]);
    expect(await fix.status("o1")).toMatchObject({ state: "filled", filled: 3, averagePrice: 100 });
  });

  it("cancels one order, mass-cancels the rest, and says a filled order is too late to cancel", async () => {
    const { fix, records } = await connected();
    await fix.submit(limit("a", "buy", 1, 90));
    await fix.submit(limit("b", "buy", 1, 91));
    await fix.submit(limit("c", "sell", 1, 200));
    await fix.submit(limit("d", "sell", 1, 99));
    counterparty(venue!, "hit-d", "buy", 1, 99);
    await eventually(
      "d filled",
      () => fix.ledger.get("d")!.state,
      (s) => s === "filled",
    );

    expect(await fix.cancel("a", "strategy: cancel")).toMatchObject({ state: "cancelled" });
    expect(await fix.cancel("d")).toMatchObject({ state: "filled", filled: 1 });
    expect(await fix.cancelAll("TEST")).toBe(2);
    expect(fix.ledger.open()).toEqual([]);
    expect(venue!.exchange.openOrders(USER)).toEqual([]);
    expect(records.of("order_cancelled")).toEqual([
      { order_id: "a", reason: "strategy: cancel" },
      { order_id: "b", reason: "venue: cancelled" },
      { order_id: "c", reason: "venue: cancelled" },
    ]);
    await expect(fix.cancel("nope")).rejects.toThrow(/no order nope/);
  });

  it("a mass cancel engaged while orders are in flight waits for each one's cancel", async () => {
    const { fix, records } = await connected();
    venue!.setFaults({ delayExecutionReportsMs: 300 });
    const sent = [fix.submit(limit("f1", "buy", 1, 80)), fix.submit(limit("f2", "sell", 1, 120))];
    expect(fix.ledger.open().map((s) => s.state)).toEqual(["pending", "pending"]);
    expect(await fix.cancelAll()).toBe(2);
    expect(fix.ledger.open()).toEqual([]);
    await Promise.all(sent); // each acknowledged (working) before its cancel
    expect([fix.ledger.get("f1")!.state, fix.ledger.get("f2")!.state]).toEqual([
      "cancelled",
      "cancelled",
    ]);
    expect(records.events.map((e) => e.type)).toEqual([
      "order_placed",
      "order_placed",
      "order_cancelled",
      "order_cancelled",
    ]);
  });

  it("counts each fill once when the venue sends every ExecutionReport twice", async () => {
    const { fix, records } = await connected();
    venue!.setFaults({ duplicateExecutionReports: true });
    await fix.submit(limit("twice", "buy", 4, 100));
    counterparty(venue!, "t1", "sell", 1, 100);
    counterparty(venue!, "t2", "sell", 3, 100);
    await eventually(
      "filled",
      () => fix.ledger.get("twice")!.state,
      (s) => s === "filled",
    );
    await fix.status("twice"); // every duplicate heard before the status answer
    expect(records.of("order_filled").map((f) => f.units)).toEqual([1, 3]);
    expect(records.of("order_placed")).toHaveLength(1);
    expect(await fix.positions()).toEqual([{ symbol: "TEST", units: 4, source: "venue" }]);
    expect(fix.ledger.position("TEST")).toBe(4);
  });

  it("keeps the order's story straight when ExecutionReports arrive out of order", async () => {
    const { fix, records } = await connected();
    venue!.setFaults({ reorderExecutionReports: true });
    const submitted = fix.submit(limit("swapped", "buy", 2, 100));
    counterparty(venue!, "s1", "sell", 2, 100);
    // The fill overtakes the New: the ack is the fill, the late New changes nothing.
    expect(await submitted).toMatchObject({ state: "filled", filled: 2 });
    await fix.submit(limit("after", "buy", 1, 50)); // pushes the held New out
    await fix.status("swapped");
    expect(
      records.events.filter((e) => "order_id" in e.data && e.data.order_id === "swapped"),
    ).toEqual([
      {
        type: "order_placed",
        data: { order_id: "swapped", side: "buy", kind: "limit", units: 2, limit_price: 100 },
      },
      {
        type: "order_filled",
        data: { order_id: "swapped", side: "buy", units: 2, price: 100, fee: 0 },
      },
    ]);
    expect(fix.ledger.get("swapped")!.state).toBe("filled");
  });

  it("rides out a sequence gap (ResendRequest, gap fill) without losing or repeating a fill", async () => {
    const { fix, records } = await connected();
    venue!.setFaults({ gapSequenceNumbers: true });
    await fix.submit(limit("gap", "buy", 2, 100));
    counterparty(venue!, "g1", "sell", 1, 100);
    counterparty(venue!, "g2", "sell", 1, 100);
    await eventually(
      "filled",
      () => fix.ledger.get("gap")!.state,
      (s) => s === "filled",
    );
    venue!.setFaults({ gapSequenceNumbers: false });
    expect(await fix.status("gap")).toMatchObject({ state: "filled", filled: 2 });
    expect(fix.health.state).toBe("connected");
    expect(records.of("order_filled").map((f) => f.units)).toEqual([1, 1]);
  });

  it("after a session drop mid-order, logs on again and learns the fill it missed by status request", async () => {
    const { fix, records } = await connected({ deadlineMs: 2_000 });
    const health: VenueHealth["state"][] = [];
    fix.onHealth((h) => health.push(h.state));
    await fix.submit(limit("open-one", "sell", 1, 500));
    counterparty(venue!, "m", "sell", 2, 100);
    // The venue fills the order at once but holds its reports; the session drops before they go.
    venue!.setFaults({ delayExecutionReportsMs: 1_000 });
    const lost = fix.submit(limit("mid", "buy", 2, 100));
    await eventually(
      "venue filled it",
      () => venue!.exchange.order(USER, "mid")?.status,
      (s) => s === "filled",
    );
    venue!.dropSessions();
    venue!.setFaults({ delayExecutionReportsMs: 0 });
    // The acknowledgement's deadline outlives the reconnect: the caller hears what the venue did.
    expect(await lost).toMatchObject({ state: "filled", filled: 2 });
    expect(health).toEqual(expect.arrayContaining(["disconnected", "connecting", "connected"]));
    expect(records.filledUnits("mid")).toBe(2);
    expect(records.of("order_filled").filter((f) => f.order_id === "mid")).toHaveLength(1);
    // The order still open at the venue came back through mass status, still working.
    expect(fix.ledger.get("open-one")!.state).toBe("working");
    expect(fix.ledger.position("TEST")).toBe(2);
    expect(await fix.positions()).toEqual([{ symbol: "TEST", units: 2, source: "venue" }]);
  });

  it("an order the venue never received is settled as rejected by the status request", async () => {
    const { fix, records } = await connected({ deadlineMs: 800 });
    venue!.setFaults({ hang: true });
    await expect(fix.submit(limit("void", "buy", 1, 10))).rejects.toThrow(/no answer/);
    expect(fix.ledger.get("void")!.state).toBe("unknown");
    venue!.setFaults({ hang: false });
    expect(await fix.status("void")).toMatchObject({ state: "rejected" });
    expect(records.of("order_rejected")).toEqual([
      { side: "buy", units: 1, check: "venue", reason: "no order with ClOrdID void" },
    ]);
    expect(records.of("order_placed")).toEqual([]);
  });

  it("records the venue's rejection and an unknown symbol, with the venue's words", async () => {
    const { fix, records } = await connected();
    venue!.setFaults({ rejectNewOrders: true });
    expect(await fix.submit(limit("no", "buy", 1, 10))).toMatchObject({
      state: "rejected",
      reason: "the venue rejects all new orders (fault switch)",
    });
    venue!.setFaults({ rejectNewOrders: false });
    expect(await fix.submit({ ...limit("where", "buy", 1, 10), symbol: "NOPE-USD" })).toMatchObject(
      { state: "rejected", reason: 'unknown symbol "NOPE-USD"' },
    );
    expect(records.of("order_rejected").map((r) => r.reason)).toEqual([
      "the venue rejects all new orders (fault switch)",
      'unknown symbol "NOPE-USD"',
    ]);
    await expect(fix.subscribe("NOPE-USD", () => {})).rejects.toThrow(/unknown symbol/);
    expect(await fix.positions()).toEqual([]); // nothing filled: the venue reports none
  });

  it("refuses wrong credentials as failed, and does not retry them", async () => {
    const { fix } = await start({ password: "wrong" });
    await expect(fix.connect()).rejects.toThrow(
      /refused the logon: .*invalid Username or Password/,
    );
    expect(fix.health).toMatchObject({ state: "failed" });
    await expect(fix.submit(limit("x", "buy", 1, 1))).rejects.toThrow(/failed/);
  });

  it("reports itself frozen when the venue hangs, sends nothing while frozen, and resyncs after", async () => {
    const { fix } = await connected();
    await fix.submit(limit("resting", "buy", 1, 5));
    venue!.setFaults({ hang: true });
    await eventually(
      "frozen",
      () => fix.health,
      (h) => h.state === "frozen",
      15_000,
    );
    expect(fix.health.reason).toMatch(/stopped answering.*peer not responding/);
    await expect(fix.submit(limit("late", "buy", 1, 10))).rejects.toMatchObject({ kind: "frozen" });
    expect(venue!.exchange.openOrders(USER).map((o) => o.clOrdId)).toEqual(["resting"]);
    // A fill while the adapter was away is learned when it logs on again.
    counterparty(venue!, "while-away", "sell", 1, 5);
    venue!.setFaults({ hang: false });
    await fix.connect();
    expect(fix.health.state).toBe("connected");
    expect(fix.ledger.get("resting")).toMatchObject({ state: "filled", filled: 1 });
    expect(fix.ledger.get("late")).toBeUndefined();
  });

  it("streams live trades from MarketDataRequest until unsubscribed", async () => {
    const { fix } = await connected();
    const trades: number[] = [];
    const stop = await fix.subscribe("TEST", (t) => trades.push(t.price));
    counterparty(venue!, "t-s", "sell", 1, 42);
    counterparty(venue!, "t-b", "buy", 1, 42);
    await eventually(
      "a trade",
      () => trades,
      (t) => t.length === 1,
    );
    expect(trades).toEqual([42]);
    await stop();
  });

  it("adopts the orders a previous run left at the venue from mass status", async () => {
    const first = await connected({ senderCompId: "RUN-1" });
    await first.fix.submit(limit("left-behind", "sell", 2, 300));
    await first.fix.close();
    const second = await connected({ senderCompId: "RUN-2" });
    expect(await second.fix.openOrders()).toMatchObject([
      { clientId: "left-behind", state: "working", units: 2, side: "sell", symbol: "TEST" },
    ]);
    expect(await second.fix.cancel("left-behind")).toMatchObject({ state: "cancelled" });
  });
});
