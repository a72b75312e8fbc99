import type { DevVenue } from "@svc/dev-venue";
import { createMemoryBus } from "@svc/lib/bus";
import { createMemoryStore } from "@svc/lib/kv";
import { createLogger } from "@svc/lib/telemetry";
import { afterAll, describe, expect, it } from "vitest";
import { eventually } from "../../../../test/support/until.js";
import { counterparty, devVenue, PASSWORD, USER } from "../execution/venues/venue-test-support.js";
import {
  approvedBot,
  botsDatabase,
  eventsOf,
  promotionPublicKeyPem,
} from "../live/live-test-support.js";
import { findBot } from "../store/bots.repository.js";
import { setVenueStatus } from "../store/live-deployments.repository.js";
import { LiveDeployments } from "./live-deployments.js";

let store: Awaited<ReturnType<typeof botsDatabase>> | undefined;
let venue: DevVenue | undefined;
const hosts: LiveDeployments[] = [];
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.stopAll().catch(() => undefined)));
  await venue?.close();
  await store?.drop();
});

/** A bots service's runners at the venue: a short lease, so a takeover happens within the test. */
function host(name: string): LiveDeployments {
  const h = new LiveDeployments({
    db: store!.db,
    schema: "bots",
    log: createLogger({ name: "test", level: process.env.TEST_LOG ?? "silent" }),
    kv: createMemoryStore(),
    bus: createMemoryBus(),
    pollIntervalMs: 60_000,
    leaseSeconds: 1.5,
    publicKeyPem: promotionPublicKeyPem,
    venue: {
      adapter: "fix",
      host: "127.0.0.1",
      port: venue!.port,
      credentials: { username: USER, password: PASSWORD, apiKey: "", apiSecret: "" },
      // Two logons with one SenderCompID would knock each other off the venue.
      senderCompId: name,
    },
    barMs: 100,
  });
  hosts.push(h);
  return h;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("runners at a venue under their deployment's lease (real FIX sessions, real Postgres)", () => {
  it("two runners race for one deployment: one trades; a paused holder whose lease moved sends nothing and stops", async () => {
    store = await botsDatabase();
    venue = await devVenue();
    const b = await approvedBot(store.db, {
      universe: { symbols: ["TEST"] },
      strategy: { family: "ma_crossover", parameters: { fast: 2, slow: 3 } },
    });
    const bot = (await findBot(store.db, b.bot.id))!;
    const sent: string[] = [];
    venue.exchange.onExecution((account, e) => {
      if (account === USER && e.kind === "new") sent.push(e.order.clOrdId);
    });
    const [one, two] = [host("HOST-1"), host("HOST-2")];
    const { task_id: taskId } = await one.insert(bot, "live", b.token);

    // Both claim at once: exactly one wins and connects; the other waits.
    const taken = await Promise.all([one.pickUp(), two.pickUp()]);
    expect([...taken].sort()).toEqual([0, 1]);
    const [holder, waiter] = taken[0] === 1 ? [one, two] : [two, one];
    const first = await eventually(
      "the holder's runner runs",
      () => holder.runnerOf(taskId),
      (r) => r?.phase === "Running",
    ).then((r) => r!);
    expect(waiter.runnerOf(taskId)).toBeUndefined();
    // The lease is short: renewed just before, as the holder's own pass would, however long the
    // wait for its runner took on a busy machine.
    await holder.pickUp();
    expect(await waiter.pickUp()).toBe(0);
    expect(venue.sessionCount()).toBe(1);

    // Two bars for the holder: its strategy decides at the next one.
    counterparty(venue, "ask", "sell", 1_000, 150);
    const print = async (i: number, price: number) => {
      counterparty(venue!, `s${i}`, "sell", 1, price);
      counterparty(venue!, `b${i}`, "buy", 1, price);
      await sleep(250);
    };
    await print(0, 100);
    await print(1, 101);

    // The holder is paused (it renews nothing) past its lease; the waiter takes the deployment.
    await sleep(1_700);
    expect(await waiter.pickUp()).toBe(1);
    const second = await eventually(
      "the new holder's runner runs",
      () => waiter.runnerOf(taskId),
      (r) => r?.phase === "Running",
    ).then((r) => r!);
    expect(first.phase).toBe("Running"); // paused: it has not learnt yet

    // The new holder renews as its service would; the old one stays paused.
    const renewing = setInterval(() => void waiter.pickUp(), 300);
    // Rising prices: ma_crossover goes long. Both runners see the bars; only the lease holder buys.
    // The old holder's strategy decides at the first of these bars, the new one's at the third.
    for (const [i, price] of [103, 106, 110, 115].entries()) await print(i + 2, price);
    const tag = (r: typeof first) => `${b.bot.id.slice(0, 8)}.${r["runTag"]}.`;
    await eventually(
      "the new holder's order at the venue",
      () => sent.filter((id) => id.startsWith(tag(second))).length,
      (n) => n >= 1,
    );
    clearInterval(renewing);
    expect(sent.filter((id) => id.startsWith(tag(first)))).toEqual([]);
    // Its writes were refused by the lease's fence: it froze, saying why.
    expect(first.frozen).toMatch(/lease/);

    // Resumed, the old holder learns the lease moved and stops without a word to the venue.
    await holder.pickUp();
    expect(first.phase).toBe("Stopped");
    expect(holder.runnerOf(taskId)).toBeUndefined();
    expect(first["venue"].health.state).toBe("closed");
    const events = await eventsOf(store.db, taskId);
    expect(events.filter((e) => e.type === "session_started")).toHaveLength(2);
    expect(events.some((e) => e.type === "order_placed")).toBe(true);
    expect(events.filter((e) => e.type === "fail_safe")).toEqual([]);
  }, 60_000);

  it("a deployment halted by request stays halted: a kill switch's park or restart finishing late writes nothing over it", async () => {
    store ??= await botsDatabase();
    venue ??= await devVenue();
    const b = await approvedBot(store.db, {
      universe: { symbols: ["TEST"] },
      strategy: { family: "ma_crossover", parameters: { fast: 2, slow: 3 } },
    });
    const bot = (await findBot(store.db, b.bot.id))!;
    const one = host("HOST-3");
    const { task_id: taskId } = await one.insert(bot, "live", b.token);
    expect(await one.haltBot(bot.id, "halted by request")).toEqual([taskId]);
    // A kill switch's park or release that ends after the halt wrote halted, and before the halt
    // let the lease go, writes as the lease's holder: put a holder on the row to play that moment.
    await store.db
      .updateTable("bot_deployments")
      .set({ host: one.hostId })
      .where("task_id", "=", taskId)
      .execute();
    for (const late of ["parked", "running"] as const)
      await setVenueStatus(store.db, taskId, one.hostId, late, null);
    const row = await store.db
      .selectFrom("bot_deployments")
      .select(["status"])
      .where("task_id", "=", taskId)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("halted");
    expect(await one.pickUp()).toBe(0);
    expect(one.runnerOf(taskId)).toBeUndefined();
  }, 60_000);
});
