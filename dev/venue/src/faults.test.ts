import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../../test/support/until.js";
import { Harness, USER, heard, newOrder, reportsFor } from "./test-support.js";

let h: Harness;
afterEach(async () => {
  await h.close();
});

async function control(method: string, path: string, body?: unknown) {
  const res = await fetch(`${h.venue.controlUrl}${path}`, {
    method,
    signal: AbortSignal.timeout(5_000),
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("dev venue fault switches, as a jspurefix client sees them", () => {
  it("rejects every new order while the switch is on, with a text naming the switch", async () => {
    h = new Harness();
    await h.start();
    const c = await h.loggedOn();
    expect((await control("PUT", "/faults", { rejectNewOrders: true })).body).toMatchObject({
      rejectNewOrders: true,
    });
    c.send("D", newOrder("refused", "buy", 1, 10));
    const report = await heard(c, "rejection", "8", (b) => b.ClOrdID === "refused");
    expect(report).toMatchObject({
      ExecType: "8",
      OrdStatus: "8",
      Text: "the venue rejects all new orders (fault switch)",
    });
    expect(h.venue.exchange.openOrders(USER)).toEqual([]);

    await control("PUT", "/faults", { rejectNewOrders: false });
    c.send("D", newOrder("taken", "buy", 1, 10));
    expect(await heard(c, "accepted", "8", (b) => b.ClOrdID === "taken")).toMatchObject({
      ExecType: "0",
    });
  });

  it("sends each ExecutionReport twice with the same ExecID, the copy marked PossResend", async () => {
    h = new Harness();
    await h.start();
    const c = await h.loggedOn();
    h.venue.setFaults({ duplicateExecutionReports: true });
    c.send("D", newOrder("twice", "sell", 2, 100));
    c.send("D", newOrder("hit", "buy", 2, 100));
    await heard(
      c,
      "second copy of the fill",
      "8",
      (b) => b.ClOrdID === "twice" && b.ExecType === "F",
      2,
    );
    const reports = reportsFor(c, "twice");
    expect(reports.map((b) => b.ExecType)).toEqual(["0", "0", "F", "F"]);
    expect(reports[0]!.ExecID).toBe(reports[1]!.ExecID);
    expect(reports[2]!.ExecID).toBe(reports[3]!.ExecID);
    const header = (b: Record<string, unknown>) => b.StandardHeader as Record<string, unknown>;
    expect(header(reports[0]!).PossResend).toBeUndefined();
    expect(header(reports[1]!).PossResend).toBe(true);
    // A client that keeps what it has seen by ExecID counts the fill once.
    const fills = new Map(
      reports.filter((b) => b.ExecType === "F").map((b) => [b.ExecID, b.LastQty]),
    );
    expect([...fills.values()]).toEqual([2]);
  });

  it("holds ExecutionReports back for the delay set, the order working at the venue meanwhile", async () => {
    h = new Harness();
    await h.start();
    const c = await h.loggedOn();
    await control("PUT", "/faults", { delayExecutionReportsMs: 400 });
    const sentAt = process.hrtime.bigint();
    c.send("D", newOrder("late", "buy", 1, 10));
    await heard(c, "late report", "8", (b) => b.ClOrdID === "late");
    const report = c.received.find((r) => r.body.ClOrdID === "late")!;
    expect(Number(report.at - sentAt) / 1e6).toBeGreaterThanOrEqual(400);
    expect(h.venue.exchange.openOrders(USER).map((o) => o.clOrdId)).toEqual(["late"]);
  });

  it("drops every session without a Logout, and the client sees its transport fail", async () => {
    h = new Harness();
    await h.start();
    const c = await h.loggedOn();
    expect(await control("POST", "/sessions/drop")).toEqual({ status: 200, body: { dropped: 1 } });
    const error = await c.ended;
    expect(error?.message).toMatch(/transport failed/);
    expect(c.logoutText()).toBeNull();
  });

  it("hangs: no heartbeat and no answer to a TestRequest, so the client times the venue out", async () => {
    h = new Harness();
    await h.start();
    const c = await h.loggedOn({ heartbeatSeconds: 1 });
    await control("PUT", "/faults", { hang: true });
    c.send("D", newOrder("unanswered", "buy", 1, 10));
    const error = await c.ended;
    expect(error?.message).toMatch(/peer not responding/);
    expect(reportsFor(c, "unanswered")).toEqual([]);
    expect(h.venue.exchange.openOrders(USER)).toEqual([]);
  });

  it("answers a bad switch update with a 400 that names the switch, and changes nothing", async () => {
    h = new Harness();
    await h.start();
    expect(await control("PUT", "/faults", { hang: "yes" })).toEqual({
      status: 400,
      body: { error: "hang must be true or false" },
    });
    expect((await control("PUT", "/faults", { delayExecutionReportsMs: -5 })).status).toBe(400);
    expect((await control("PUT", "/faults", { rejectAll: true })).body.error).toMatch(
      /unknown switch "rejectAll"/,
    );
    expect(await control("PUT", "/faults", "{not json")).toEqual({
      status: 400,
      body: { error: "the body is not JSON" },
    });
    expect((await control("GET", "/nothing")).status).toBe(404);
    expect((await control("GET", "/faults")).body).toEqual({
      rejectNewOrders: false,
      duplicateExecutionReports: false,
      reorderExecutionReports: false,
      gapSequenceNumbers: false,
      delayExecutionReportsMs: 0,
      hang: false,
    });
  });

  it("swaps ExecutionReports in pairs: the fill before the order's New", async () => {
    h = new Harness();
    await h.start();
    const c = await h.loggedOn();
    await control("PUT", "/faults", { reorderExecutionReports: true });
    c.send("D", newOrder("swapped", "buy", 1, 100));
    h.venue.exchange.submit("maker", {
      clOrdId: "m",
      symbol: "TEST",
      side: "sell",
      kind: "limit",
      qty: 1,
      price: 100,
    });
    await heard(c, "both reports", "8", (b) => b.ClOrdID === "swapped", 2);
    expect(reportsFor(c, "swapped").map((b) => b.ExecType)).toEqual(["F", "0"]);
  });

  it("skips a sequence number before a report: the client asks for a resend, the venue gap-fills", async () => {
    h = new Harness();
    await h.start();
    const c = await h.loggedOn();
    h.venue.setFaults({ gapSequenceNumbers: true });
    c.send("D", newOrder("gapped", "buy", 1, 10));
    // The report past the gap is delivered at once; the missing number comes as a
    // SequenceReset-GapFill (4) answering the client's ResendRequest.
    expect(await heard(c, "the report", "8", (b) => b.ClOrdID === "gapped")).toMatchObject({
      ExecType: "0",
    });
    await eventually(
      "the gap fill",
      () => c.decoded,
      (d) => d.includes("4"),
    );
    h.venue.setFaults({ gapSequenceNumbers: false });
    c.send("D", newOrder("after", "buy", 1, 10));
    await heard(c, "the session goes on", "8", (b) => b.ClOrdID === "after");
    expect(reportsFor(c, "gapped")).toHaveLength(1);
  });
});
