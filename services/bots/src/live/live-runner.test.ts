import type { DevVenue } from "@svc/dev-venue";
import type { Kysely } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../../../../test/support/until.js";
import { counterparty, devVenue, USER } from "../execution/venues/venue-test-support.js";
import type { BotsDatabase } from "../store/bots.table.js";
import type { LiveRunner, LiveStrategy } from "./live-runner.js";
import {
  approvedBot,
  botsDatabase,
  eventsOf,
  liveRunner,
  workloadRuns,
} from "./live-test-support.js";

let store: Awaited<ReturnType<typeof botsDatabase>>;
let db: Kysely<BotsDatabase>;
let venue: DevVenue | undefined;
const runners: LiveRunner[] = [];

beforeAll(async () => {
  store = await botsDatabase();
  db = store.db;
}, 60_000);
afterAll(() => store?.drop());
afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.stop("test over").catch(() => undefined)));
  await venue?.close();
  venue = undefined;
});

/** The strategy's orders at its first bar only: each test sets the venue up around them. */
const onFirstBar = (orders: NonNullable<ReturnType<LiveStrategy>>["orders"]): LiveStrategy => {
  let seen = 0;
  return () => (seen++ === 0 ? { orders: orders! } : undefined);
};

const limit = (side: "buy" | "sell", units: number, limitPrice: number) => ({
  side,
  units,
  kind: "limit" as const,
  limitPrice,
});

/** A trade of two counterparties on TEST at `price`: the runner's next bar. */
function print(v: DevVenue, id: string, price: number) {
  counterparty(v, `${id}s`, "sell", 1, price);
  counterparty(v, `${id}b`, "buy", 1, price);
}

const types = <E extends { type: string }>(events: E[], type: string) =>
  events.filter((e) => e.type === type);

describe("a live runner on the dev venue, over real FIX sessions and real Postgres", () => {
  it("starts, trades, and its kill switch cancels at the venue, confirmed by the venue", async () => {
    venue = await devVenue();
    const b = await approvedBot(db);
    const runner = liveRunner(db, venue, b, {
      strategy: onFirstBar([limit("buy", 1, 100), limit("buy", 1, 90), limit("buy", 1, 91)]),
    });
    runners.push(runner);
    await runner.start();
    expect(runner.phase).toBe("Running");
    expect(runner.reconciliation).toMatchObject({ working: [], settled: [], adopted: [] });
    counterparty(venue, "ask", "sell", 1, 100); // what the strategy's first order takes
    print(venue, "p1", 99);
    await eventually(
      "the fill",
      () => runner.position,
      (p) => p === 1,
    );
    await eventually(
      "two resting bids",
      () => venue!.exchange.openOrders(USER, "TEST").length,
      (n) => n === 2,
    );

    const halt = await runner.halt("cancel", "kill switch engaged: platform");
    expect(halt).toMatchObject({
      cancelled: 2,
      openAtVenue: 0,
      positionAtVenue: 1,
      confirmed: true,
    });
    expect(runner.phase).toBe("Stopped");
    expect(venue.exchange.openOrders(USER, "TEST")).toEqual([]);
    await runner.stop("kill switch");

    const events = await eventsOf(db, runner["o"].taskId);
    expect(types(events, "order_placed")).toHaveLength(3);
    expect(types(events, "order_filled").map((e) => e.data.units)).toEqual([1]);
    expect(types(events, "order_cancelled")).toHaveLength(2);
    expect(types(events, "halted")[0]!.data).toMatchObject({
      venue: { mode: "cancel", cancelled: 2, open_at_venue: 0, confirmed: true },
    });
    expect(events.filter((e) => e.type === "phase_changed").map((e) => e.data.phase)).toEqual([
      "Running",
      "Draining",
      "Stopped",
    ]);
    expect(await workloadRuns(db, b.bot.slug)).toMatchObject([
      { outcome: "succeeded", op: "start", mode: "live", venue: "fix" },
      { outcome: "succeeded", op: "stop", halt: { mode: "cancel", confirmed: true } },
    ]);
  }, 30_000);

  it("flattens: closes the position with orders until the venue reports flat", async () => {
    venue = await devVenue();
    const b = await approvedBot(db);
    const runner = liveRunner(db, venue, b, { strategy: onFirstBar([limit("buy", 2, 100)]) });
    runners.push(runner);
    await runner.start();
    counterparty(venue, "ask", "sell", 2, 100);
    print(venue, "p1", 99);
    await eventually(
      "the fill",
      () => runner.position,
      (p) => p === 2,
    );
    counterparty(venue, "bid", "buy", 5, 95); // what the closing order sells into
    const halt = await runner.halt("flatten", "kill switch engaged: bot");
    expect(halt).toMatchObject({
      openAtVenue: 0,
      positionAtVenue: 0,
      closingOrders: 1,
      confirmed: true,
    });
    expect(venue.exchange.positions(USER)).toEqual([]);
  }, 30_000);

  it("after a restart, books once the fill it missed while no runner watched, then trades on", async () => {
    venue = await devVenue();
    const b = await approvedBot(db);
    const first = liveRunner(db, venue, b, { strategy: onFirstBar([limit("sell", 3, 300)]) });
    runners.push(first);
    await first.start();
    print(venue, "p1", 250);
    await eventually(
      "resting",
      () => venue!.exchange.openOrders(USER, "TEST").length,
      (n) => n === 1,
    );
    counterparty(venue, "seen", "buy", 1, 300); // booked by the first runner
    await eventually(
      "the first fill",
      () => first.position,
      (p) => p === -1,
    );
    await first.stop("rolled");
    counterparty(venue, "taker", "buy", 1, 300); // fills another third while nobody watches

    const second = liveRunner(db, venue, b, { strategy: () => undefined });
    runners.push(second);
    await second.start();
    const [order] = venue.exchange.openOrders(USER, "TEST");
    expect(second.reconciliation).toMatchObject({ working: [order!.clOrdId], adopted: [] });
    // The venue's cumulative 2 less the 1 the events hold: one more booked, not two.
    expect(second.position).toBe(-2);
    const all = await eventsOf(db, second["o"].taskId);
    expect(types(all, "order_filled")).toEqual([
      {
        type: "order_filled",
        data: expect.objectContaining({ order_id: order!.clOrdId, units: 1 }),
      },
    ]);
    // Continuous reconciliation asks again: nothing is booked twice.
    await second.reconcileNow();
    counterparty(venue, "taker2", "buy", 1, 300);
    await eventually(
      "the rest filled",
      () => second.position,
      (p) => p === -3,
    );
    await second.flush();
    const later = await eventsOf(db, second["o"].taskId);
    expect(types(later, "order_filled").map((e) => e.data.units)).toEqual([1, 1]);
  }, 30_000);

  it("fails closed when the venue's position is not the bot's events', and says why", async () => {
    venue = await devVenue();
    const b = await approvedBot(db);
    // Someone traded the bot's account by hand: the venue holds 1 TEST the events never saw.
    counterparty(venue, "ask", "sell", 1, 100);
    venue.exchange.submit(USER, {
      clOrdId: "by-hand",
      symbol: "TEST",
      side: "buy",
      kind: "limit",
      qty: 1,
      price: 100,
    });
    const runner = liveRunner(db, venue, b, { strategy: () => ({ target: 1 }) });
    runners.push(runner);
    await expect(runner.start()).rejects.toMatchObject({
      code: "reconciliation_failed",
      message: expect.stringContaining(
        "the venue reports a position of 1 TEST, the bot's events 0",
      ),
    });
    expect(runner.phase).toBe("Stopped");
    expect(await eventsOf(db, runner["o"].taskId)).toEqual([]);
    expect(await workloadRuns(db, b.bot.slug)).toMatchObject([
      { outcome: "failed", op: "start", error: "reconciliation_failed" },
    ]);
  }, 30_000);

  it("refuses to start without a valid ApprovedPromotion token, before it connects", async () => {
    venue = await devVenue();
    const b = await approvedBot(db);
    const runner = liveRunner(
      db,
      venue,
      { ...b, token: `${b.token}x` },
      { strategy: () => undefined },
    );
    runners.push(runner);
    await expect(runner.start()).rejects.toMatchObject({ code: "approved_promotion_required" });
    expect(venue.sessionCount()).toBe(0);
    expect(await workloadRuns(db, b.bot.slug)).toMatchObject([{ outcome: "denied", op: "start" }]);
  }, 30_000);

  it("freezes and says so when the venue hangs: no order is sent after", async () => {
    venue = await devVenue();
    const b = await approvedBot(db);
    let bars = 0;
    const runner = liveRunner(db, venue, b, {
      strategy: () => (bars++ === 0 ? undefined : { orders: [limit("buy", 1, 50)] }),
    });
    runners.push(runner);
    await runner.start();
    venue.setFaults({ hang: true });
    await eventually(
      "frozen",
      () => runner.frozen,
      (f) => f !== undefined,
    );
    expect(runner.frozen).toMatch(/the venue is frozen: the venue stopped answering/);
    venue.setFaults({ hang: false });
    print(venue, "p1", 99);
    print(venue, "p2", 98);
    await runner.flush();
    expect(venue.exchange.ordersOf(USER)).toEqual([]);
    const events = await eventsOf(db, runner["o"].taskId);
    expect(types(events, "fail_safe")[0]!.data).toMatchObject({ frozen: true });
    expect(types(events, "order_placed")).toEqual([]);
  }, 30_000);

  it("a session drop mid-order and every ExecutionReport twice: nothing lost, nothing doubled", async () => {
    venue = await devVenue();
    const b = await approvedBot(db);
    const runner = liveRunner(db, venue, b, {
      strategy: onFirstBar([limit("buy", 2, 100), limit("sell", 1, 500)]),
      reconcileEveryMs: 200,
    });
    runners.push(runner);
    await runner.start();
    venue.setFaults({ duplicateExecutionReports: true, delayExecutionReportsMs: 500 });
    counterparty(venue, "ask", "sell", 2, 100);
    print(venue, "p1", 99);
    // The venue fills the bid at once, its reports held back; the session drops before they go.
    await eventually(
      "the bid filled and the ask resting, at the venue",
      () =>
        venue!.exchange
          .ordersOf(USER)
          .map((o) => o.status)
          .sort()
          .join(),
      (s) => s === "filled,new",
    );
    venue.dropSessions();
    venue.setFaults({ delayExecutionReportsMs: 0 });
    await eventually(
      "booked after the reconnect",
      () => runner.position,
      (p) => p === 2,
      10_000,
    );
    await eventually(
      "the ask still working",
      () => venue!.exchange.openOrders(USER, "TEST").length,
      (n) => n === 1,
    );
    await new Promise((r) => setTimeout(r, 600)); // duplicates and continuous reconciliation rounds
    await runner.halt("cancel", "drill");
    const events = await eventsOf(db, runner["o"].taskId);
    expect(types(events, "order_placed")).toHaveLength(2);
    expect(types(events, "order_filled").map((e) => e.data.units)).toEqual([2]);
    expect(types(events, "order_cancelled")).toHaveLength(1);
    expect(types(events, "position_changed").at(-1)!.data).toMatchObject({ units: 2 });
  }, 40_000);
});
