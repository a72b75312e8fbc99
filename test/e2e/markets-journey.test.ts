import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import { setFixLogLevel, startDevVenue, type DevVenue } from "@svc/dev-venue";
import { approvedToken } from "../support/paper.js";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const USER = "journey";
const PASSWORD = "a long enough password for the dev venue";
setFixLogLevel("none");

interface Deployment {
  task_id: string;
  target: string;
  status: string;
  parked: boolean;
  result_summary: Record<string, unknown> | null;
}

/**
 * The markets journey on the whole platform (`npm start`'s process) and the dev venue over real
 * FIX sessions on loopback: a bot is created, backtested, promoted with four eyes, deployed live;
 * its runner, in the bots service's own process, logs on to the venue and its orders reach it;
 * a kill switch halts it at the venue, confirmed by the venue; its release starts it again.
 */
describe("the markets journey: backtest, four eyes, live at the dev venue over FIX, kill switch", () => {
  let venue: DevVenue;
  let p: RunningPlatform;
  const atVenue: { clOrdId: string; kind: string }[] = [];
  beforeAll(async () => {
    venue = await startDevVenue({ username: USER, password: PASSWORD, symbols: ["TEST"] });
    venue.exchange.onExecution((account, e) => {
      if (account === USER) atVenue.push({ clOrdId: e.order.clOrdId, kind: e.kind });
    });
    p = await startTestPlatform("postgres", {
      SVC_LIVE_VENUE: "fix",
      SVC_LIVE_VENUE_HOST: "127.0.0.1",
      SVC_LIVE_VENUE_PORT: String(venue.port),
      SVC_LIVE_VENUE_USERNAME: USER,
      SVC_LIVE_VENUE_PASSWORD: PASSWORD,
      SVC_LIVE_BAR_MS: "200",
    });
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    await venue?.close();
  });

  const deployment = async (slug: string, taskId: string) =>
    ((await call(p.url, "GET", `/bots/${slug}/deployments`)).body.items as Deployment[]).find(
      (d) => d.task_id === taskId,
    )!;
  const events = async (taskId: string) =>
    (
      await sql<{
        type: string;
        data: Record<string, unknown>;
      }>`select type, data from bots.bot_events where task_id = ${taskId} order by seq`.execute(
        p.platform.db.db,
      )
    ).rows;
  /** Two counterparties trade on TEST at `price`: one bar for the runner. */
  const print = async (i: number, price: number) => {
    venue.exchange.submit("street", {
      clOrdId: `s${i}`,
      symbol: "TEST",
      side: "sell",
      kind: "limit",
      qty: 1,
      price,
    });
    venue.exchange.submit("street", {
      clOrdId: `b${i}`,
      symbol: "TEST",
      side: "buy",
      kind: "limit",
      qty: 1,
      price,
    });
    await new Promise((r) => setTimeout(r, 350));
  };

  it("runs from a new bot to orders at the venue, halted there by the kill switch and released", async () => {
    const slug = "journey";
    const token = await approvedToken(
      p,
      slug,
      "venues",
      {
        universe: { symbols: ["TEST"] },
        strategy: { family: "ma_crossover", parameters: { fast: 2, slow: 3 } },
      },
      async () => {
        const bt = await call(p.url, "POST", `/bots/${slug}/backtest`, {
          data_source: "synthetic:1",
        });
        expect(bt.status).toBe(202);
        const done = await eventually(
          "the backtest finishes",
          () => deployment(slug, bt.body.task_id),
          (d) => d?.status === "success" || d?.status === "failed",
          60_000,
        );
        expect(done.status).toBe("success");
      },
    );

    // Deployed live: the runner starts in this process at once and logs on to the venue.
    expect(
      (await call(p.url, "POST", `/bots/${slug}/deploy`, { target: "live" })).body.error.code,
    ).toBe("approved_promotion_required");
    const deployed = await call(p.url, "POST", `/bots/${slug}/deploy`, {
      target: "live",
      approved_promotion: token,
    });
    expect(deployed.status).toBe(202);
    expect(deployed.body).toMatchObject({ target: "live", status: "running", version: 1 });
    const taskId: string = deployed.body.task_id;
    const again = await call(p.url, "POST", `/bots/${slug}/deploy`, {
      target: "live",
      approved_promotion: token,
    });
    expect(again.status).toBe(409);
    await eventually(
      "the runner's session at the venue",
      async () => (await events(taskId)).map((e) => e.type),
      (types) => types.includes("session_started"),
      5_000,
    );
    expect(venue.sessionCount()).toBe(1);

    // Rising prices: the strategy goes long at the third bar. Its ExecutionReports are held back
    // by the venue, so the kill switch engages while the order is in flight.
    venue.exchange.submit("street", {
      clOrdId: "ask",
      symbol: "TEST",
      side: "sell",
      kind: "limit",
      qty: 1_000,
      price: 150,
    });
    await print(0, 100);
    await print(1, 101);
    venue.setFaults({ delayExecutionReportsMs: 1_500 });
    await print(2, 103);
    await eventually(
      "the bot's order at the venue",
      () => atVenue.filter((e) => e.kind === "new"),
      (orders) => orders.length > 0,
    );
    const engaged = await call(p.url, "PUT", `/kill-switches/${slug}-halt`, {
      scope: "bot",
      target: slug,
      mode: "cancel",
      reason: "journey drill",
    });
    expect(engaged.status).toBe(200);
    // The halt waits for the order's acknowledgement, then cancels and asks the venue.
    const halted = await eventually(
      "the halt confirmed by the venue",
      async () => (await events(taskId)).find((e) => e.type === "halted"),
      (h) => h !== undefined,
    );
    venue.setFaults({ delayExecutionReportsMs: 0 });
    const filled = (await events(taskId))
      .filter((e) => e.type === "order_filled")
      .reduce((sum, e) => sum + (e.data.units as number), 0);
    const atVenueFilled = atVenue.filter((e) => e.kind === "trade").length;
    expect(atVenueFilled).toBeGreaterThan(0);
    expect(filled).toBeGreaterThan(0);
    const held = filled;
    const order = (await events(taskId)).map((e) => e.type);
    expect(order.indexOf("order_filled")).toBeLessThan(order.indexOf("halted"));
    expect(halted!.data).toMatchObject({
      reason: expect.stringContaining("journey drill"),
      venue: { mode: "cancel", open_at_venue: 0, position_at_venue: held, confirmed: true },
    });
    expect(venue.exchange.openOrders(USER, "TEST")).toEqual([]);
    expect(await deployment(slug, taskId)).toMatchObject({ status: "halted", parked: true });
    const sentBefore = atVenue.filter((e) => e.kind === "new").length;
    await print(10, 120); // halted: a bar changes nothing at the venue
    expect(atVenue.filter((e) => e.kind === "new").length).toBe(sentBefore);

    // Released: the runner starts again, reconciling with the venue before it trades.
    expect((await call(p.url, "DELETE", `/kill-switches/${slug}-halt`)).status).toBe(200);
    await eventually(
      "the runner runs again",
      () => deployment(slug, taskId),
      (d) => d.status === "running" && !d.parked,
    );
    await eventually(
      "its second start",
      async () => (await events(taskId)).filter((e) => e.type === "session_started"),
      (starts) => starts.length === 2,
    );
    // A halt by request ends it for good: cancelled at the venue, its session logged out.
    const ended = await call(p.url, "POST", `/bots/${slug}/halt`, { reason: "end of journey" });
    expect(ended.body).toMatchObject({ halted: 1, task_ids: [taskId] });
    expect(await deployment(slug, taskId)).toMatchObject({ status: "halted", parked: false });
    await eventually(
      "the runner's venue session closed",
      () => venue.sessionCount(),
      (n) => n === 0,
    );
    const audits = await sql<{
      n: number;
    }>`select count(*)::int as n from bots.outbox where type = 'svc.events.v1.AuditRecorded'`.execute(
      p.platform.db.db,
    );
    expect(audits.rows[0]!.n).toBeGreaterThan(0);
  }, 120_000);
});
