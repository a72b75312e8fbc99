import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../../test/support/until.js";
import { Harness, PASSWORD, USER, heard, newOrder, reportsFor } from "./test-support.js";

let h: Harness;
afterEach(async () => {
  await h.close();
});

describe("dev venue over FIX 4.4 (jspurefix on both sides, loopback TCP)", () => {
  it("logs a client on with the right credentials and refuses a wrong password with a reason", async () => {
    h = new Harness();
    await h.start();
    const good = await h.loggedOn();
    expect(h.venue.sessionCount()).toBe(1);

    const bad = await h.client({ password: `${PASSWORD}x`, senderCompId: "OTHER" });
    await expect(bad.ready).rejects.toThrow();
    await bad.ended;
    expect(bad.logoutText()).toMatch(/invalid Username or Password/);

    const unknown = await h.client({ username: "nobody", senderCompId: "THIRD" });
    await expect(unknown.ready).rejects.toThrow();
    expect(unknown.logoutText()).toMatch(/invalid Username or Password/);
    expect(h.venue.sessionCount()).toBe(1);

    await good.close();
    await eventually(
      "the venue lets the session go",
      () => h.venue.sessionCount(),
      (n) => n === 0,
    );
  });

  it("rests a limit order and fills it in parts against crossing orders, price-time", async () => {
    h = new Harness();
    await h.start();
    const c = await h.loggedOn();
    c.send("D", newOrder("ask-100", "sell", 5, 100));
    c.send("D", newOrder("ask-100-later", "sell", 1, 100));
    const rested = await heard(
      c,
      "ask rests",
      "8",
      (b) => b.ClOrdID === "ask-100" && b.ExecType === "0",
    );
    expect(rested).toMatchObject({ OrdStatus: "0", LeavesQty: 5, CumQty: 0 });

    c.send("D", newOrder("bid-2", "buy", 2, 100));
    const firstFill = await heard(
      c,
      "maker's first fill",
      "8",
      (b) => b.ClOrdID === "ask-100" && b.ExecType === "F",
    );
    expect(firstFill).toMatchObject({
      OrdStatus: "1",
      LastQty: 2,
      LastPx: 100,
      CumQty: 2,
      LeavesQty: 3,
    });

    // Crosses the rest of the first ask, then the later one at the same price, then rests.
    c.send("D", newOrder("bid-5", "buy", 5, 101));
    const makerDone = await heard(
      c,
      "maker filled",
      "8",
      (b) => b.ClOrdID === "ask-100" && b.OrdStatus === "2",
    );
    expect(makerDone).toMatchObject({
      ExecType: "F",
      LastQty: 3,
      CumQty: 5,
      LeavesQty: 0,
      AvgPx: 100,
    });
    const takerLast = await heard(
      c,
      "taker's second fill",
      "8",
      (b) => b.ClOrdID === "bid-5" && b.ExecType === "F",
      2,
    );
    expect(takerLast).toMatchObject({
      OrdStatus: "1",
      LastQty: 1,
      LastPx: 100,
      CumQty: 4,
      LeavesQty: 1,
    });
    expect(reportsFor(c, "bid-5").map((b) => [b.ExecType, b.LastQty])).toEqual([
      ["0", undefined],
      ["F", 3],
      ["F", 1],
    ]);
    expect(h.venue.exchange.depth("TEST")).toEqual({ bids: [[101, 1]], asks: [] });
  });

  it("cancels an open order, and refuses to cancel one it does not know", async () => {
    h = new Harness();
    await h.start();
    const c = await h.loggedOn();
    c.send("D", newOrder("o1", "buy", 1, 50));
    await heard(c, "o1 new", "8", (b) => b.ClOrdID === "o1");
    c.send("F", {
      OrigClOrdID: "o1",
      ClOrdID: "cxl-1",
      Instrument: { Symbol: "TEST" },
      Side: "1",
      TransactTime: new Date(),
      OrderQtyData: { OrderQty: 1 },
    });
    const canceled = await heard(c, "o1 canceled", "8", (b) => b.ClOrdID === "cxl-1");
    expect(canceled).toMatchObject({
      OrigClOrdID: "o1",
      ExecType: "4",
      OrdStatus: "4",
      LeavesQty: 0,
    });
    expect(h.venue.exchange.depth("TEST").bids).toEqual([]);

    c.send("F", {
      OrigClOrdID: "never",
      ClOrdID: "cxl-2",
      Instrument: { Symbol: "TEST" },
      Side: "1",
      TransactTime: new Date(),
      OrderQtyData: { OrderQty: 1 },
    });
    const refused = await heard(c, "cancel refused", "9", (b) => b.ClOrdID === "cxl-2");
    expect(refused).toMatchObject({
      OrigClOrdID: "never",
      CxlRejReason: 1,
      Text: "no order with ClOrdID never",
    });
  });

  it("mass-cancels every open order of the account and reports how many", async () => {
    h = new Harness();
    await h.start();
    const c = await h.loggedOn();
    c.send("D", newOrder("m1", "buy", 1, 90));
    c.send("D", newOrder("m2", "sell", 1, 110));
    c.send("D", newOrder("m3", "buy", 1, 29000, "BTC-USD"));
    await heard(c, "m3 new", "8", (b) => b.ClOrdID === "m3");
    c.send("q", {
      ClOrdID: "mass-1",
      MassCancelRequestType: "1",
      Instrument: { Symbol: "TEST" },
      TransactTime: new Date(),
    });
    const report = await heard(c, "mass cancel report", "r");
    expect(report).toMatchObject({
      ClOrdID: "mass-1",
      MassCancelResponse: "1",
      TotalAffectedOrders: 2,
    });
    expect(h.venue.exchange.openOrders(USER).map((o) => o.clOrdId)).toEqual(["m3"]);

    c.send("q", { ClOrdID: "mass-2", MassCancelRequestType: "7", TransactTime: new Date() });
    await heard(c, "second report", "r", (b) => b.ClOrdID === "mass-2");
    expect(h.venue.exchange.openOrders(USER)).toEqual([]);
    expect(reportsFor(c, "mass-2")).toMatchObject([{ OrigClOrdID: "m3", OrdStatus: "4" }]);
  });

  it("keeps each account's orders its own: another account's mass cancel leaves them working", async () => {
    h = new Harness();
    await h.start({ accounts: [{ username: "bot-2", password: "second password" }] });
    const first = await h.loggedOn();
    const second = await h.loggedOn({
      username: "bot-2",
      password: "second password",
      senderCompId: "SECOND",
    });
    first.send("D", newOrder("mine", "buy", 1, 90));
    await heard(first, "mine new", "8", (b) => b.ClOrdID === "mine");
    second.send("D", newOrder("theirs", "buy", 1, 91));
    await heard(second, "theirs new", "8", (b) => b.ClOrdID === "theirs");
    second.send("q", { ClOrdID: "mass-b", MassCancelRequestType: "7", TransactTime: new Date() });
    expect(await heard(second, "mass cancel report", "r")).toMatchObject({
      TotalAffectedOrders: 1,
    });
    expect(h.venue.exchange.openOrders(USER).map((o) => o.clOrdId)).toEqual(["mine"]);
    expect(h.venue.exchange.openOrders("bot-2")).toEqual([]);
    expect(reportsFor(first, "theirs")).toEqual([]);
  });

  it("tells a client that reconnects its open orders, with the fills made while it was away", async () => {
    h = new Harness();
    await h.start();
    const first = await h.loggedOn();
    first.send("D", newOrder("keep-1", "sell", 4, 100));
    first.send("D", newOrder("keep-2", "buy", 1, 90));
    await heard(first, "keep-2 new", "8", (b) => b.ClOrdID === "keep-2");
    h.venue.dropSessions();
    await first.ended;
    // Another participant trades against the order while its owner is disconnected.
    h.venue.exchange.submit("someone-else", {
      clOrdId: "x",
      symbol: "TEST",
      side: "buy",
      kind: "limit",
      qty: 3,
      price: 100,
    });

    const again = await h.loggedOn({ senderCompId: "SVC-CLIENT-2" });
    again.send("AF", { MassStatusReqID: "ms-1", MassStatusReqType: 7 });
    await heard(
      again,
      "last mass status report",
      "8",
      (b) => b.MassStatusReqID === "ms-1" && b.LastRptRequested === true,
    );
    const statuses = again.received
      .filter((r) => r.body.MassStatusReqID === "ms-1")
      .map((r) => r.body);
    expect(
      statuses.map((b) => [
        b.ClOrdID,
        b.ExecType,
        b.OrdStatus,
        b.CumQty,
        b.LeavesQty,
        b.TotNumReports,
      ]),
    ).toEqual([
      ["keep-1", "I", "1", 3, 1, 2],
      ["keep-2", "I", "0", 0, 1, 2],
    ]);

    again.send("H", {
      ClOrdID: "keep-1",
      OrdStatusReqID: "st-1",
      Instrument: { Symbol: "TEST" },
      Side: "2",
    });
    const one = await heard(again, "order status", "8", (b) => b.OrdStatusReqID === "st-1");
    expect(one).toMatchObject({
      ClOrdID: "keep-1",
      ExecType: "I",
      OrdStatus: "1",
      CumQty: 3,
      AvgPx: 100,
    });
    again.send("H", {
      ClOrdID: "nope",
      OrdStatusReqID: "st-2",
      Instrument: { Symbol: "TEST" },
      Side: "1",
    });
    const unknown = await heard(
      again,
      "unknown order status",
      "8",
      (b) => b.OrdStatusReqID === "st-2",
    );
    expect(unknown).toMatchObject({ OrdStatus: "8", Text: "no order with ClOrdID nope" });
  });

  it("publishes a snapshot and then incremental book and trade updates to a subscriber", async () => {
    h = new Harness();
    await h.start();
    const c = await h.loggedOn();
    c.send("V", {
      MDReqID: "md-1",
      SubscriptionRequestType: "1",
      MarketDepth: 0,
      MDReqGrp: [{ MDEntryType: "0" }, { MDEntryType: "1" }, { MDEntryType: "2" }],
      InstrmtMDReqGrp: [{ Instrument: { Symbol: "BTC-USD" } }],
    });
    const snapshot = await heard(c, "snapshot", "W");
    const entries = snapshot.MDFullGrp as Array<{
      MDEntryType: string;
      MDEntryPx: number;
      MDEntrySize: number;
    }>;
    const bids = entries.filter((e) => e.MDEntryType === "0").map((e) => e.MDEntryPx);
    const asks = entries.filter((e) => e.MDEntryType === "1").map((e) => e.MDEntryPx);
    expect(bids).toHaveLength(3);
    expect(asks).toHaveLength(3);
    // Seeded liquidity quotes around the first close of the walk (30,000), best first.
    expect(bids[0]).toBeLessThan(30_000);
    expect(asks[0]).toBeGreaterThan(30_000);
    expect(Math.max(...bids)).toBe(bids[0]);
    expect(Math.min(...asks)).toBe(asks[0]);

    // A market buy takes the best ask: one trade entry and a book change.
    c.send("D", newOrder("mkt-1", "buy", 1, undefined, "BTC-USD"));
    const trade = await heard(c, "trade update", "X", (b) =>
      (b.MDIncGrp as Array<{ MDEntryType: string }>).some((e) => e.MDEntryType === "2"),
    );
    expect(trade.MDIncGrp).toMatchObject([
      { MDUpdateAction: "0", MDEntryType: "2", MDEntryPx: asks[0], MDEntrySize: 1 },
    ]);
    const change = await heard(c, "best ask shrinks", "X", (b) =>
      (b.MDIncGrp as Array<{ MDEntryType: string; MDEntryPx: number }>).some(
        (e) => e.MDEntryType === "1" && e.MDEntryPx === asks[0],
      ),
    );
    expect(change.MDIncGrp).toMatchObject([
      { MDUpdateAction: "1", MDEntryType: "1", MDEntryPx: asks[0], MDEntrySize: 1 },
    ]);

    // The next bar moves every quote: old levels deleted, new ones added.
    h.venue.advanceLiquidity();
    const moved = await heard(c, "book moves with the next bar", "X", (b) =>
      (b.MDIncGrp as Array<{ MDUpdateAction: string }>).some((e) => e.MDUpdateAction === "2"),
    );
    const actions = (moved.MDIncGrp as Array<{ MDUpdateAction: string }>).map(
      (e) => e.MDUpdateAction,
    );
    expect(actions.filter((a) => a === "0")).toHaveLength(6);

    c.send("V", {
      MDReqID: "md-2",
      SubscriptionRequestType: "0",
      MarketDepth: 1,
      InstrmtMDReqGrp: [{ Instrument: { Symbol: "ETH-USD" } }],
    });
    const refused = await heard(c, "unknown symbol refused", "Y");
    expect(refused).toMatchObject({
      MDReqID: "md-2",
      MDReqRejReason: "0",
      Text: 'unknown symbol "ETH-USD"',
    });
  });

  it("fills a market order across levels and cancels what the book could not fill", async () => {
    h = new Harness();
    await h.start();
    const c = await h.loggedOn();
    const asks = h.venue.exchange.depth("BTC-USD").asks;
    expect(asks.reduce((n, [, size]) => n + size, 0)).toBe(6);
    c.send("D", newOrder("sweep", "buy", 7, undefined, "BTC-USD"));
    const last = await heard(
      c,
      "remainder canceled",
      "8",
      (b) => b.ClOrdID === "sweep" && b.ExecType === "4",
    );
    expect(last).toMatchObject({
      OrdStatus: "4",
      CumQty: 6,
      LeavesQty: 0,
      Text: "market order: no liquidity left for 1",
    });
    expect(
      reportsFor(c, "sweep")
        .filter((b) => b.ExecType === "F")
        .map((b) => b.LastPx),
    ).toEqual([asks[0]![0], asks[1]![0], asks[2]![0]]);
  });

  it("rejects orders it cannot take, with a text that says why", async () => {
    h = new Harness();
    await h.start();
    const c = await h.loggedOn();
    c.send("D", newOrder("r1", "buy", 1, 10, "NOPE"));
    c.send("D", newOrder("r2", "buy", -1, 10));
    c.send("D", { ...newOrder("r3", "buy", 1, 10), OrdType: "3" });
    c.send("D", newOrder("r4", "buy", 1, 10));
    c.send("D", newOrder("r4", "buy", 1, 10));
    await heard(c, "duplicate refused", "8", (b) => b.ClOrdID === "r4" && b.ExecType === "8");
    const text = (id: string) => reportsFor(c, id).find((b) => b.ExecType === "8")?.Text;
    expect(text("r1")).toBe('unknown symbol "NOPE"');
    expect(text("r2")).toMatch(/OrderQty must be a number/);
    expect(text("r3")).toMatch(/unsupported OrdType 3/);
    expect(text("r4")).toMatch(/duplicate ClOrdID r4/);
  });
});
