import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import { ephemeralStatementKeyPem } from "@svc/lib/signed-statement";
import { eventually } from "../support/until.js";
import {
  call,
  createTestDatabase,
  startTestPlatform,
  PLATFORM_START_TIMEOUT_MS,
} from "../support/test-platform.js";

const as = (user: string) => ({ "x-svc-local-user": user });
const spec = (slug: string) => ({
  name: slug,
  slug,
  kind: "trading",
  universe: { symbols: ["BTC-USD"] },
  strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
  engine: { initial_cash: 100000, fee_bps: 5, slippage_bps: 2, position_size: 1 },
});

/** Creates a bot and walks it through an approved promotion; returns the ApprovedPromotion token. */
async function approvedBot(p: RunningPlatform, slug: string): Promise<string> {
  const bot = (await call(p.url, "POST", "/bots", spec(slug), as("alice"))).body;
  await eventually(
    "the promotion service learns of the bot",
    () =>
      sql<{
        n: number;
      }>`select count(*)::int as n from promotion.known_bot_versions where slug = ${slug}`.execute(
        p.platform.db.db,
      ),
    (r) => r.rows[0]!.n > 0,
  );
  await call(
    p.url,
    "POST",
    "/promotion/requests",
    {
      request_id: `promo-${slug}`,
      kind: "strategy",
      artifact: { bot_ref: slug, version: 1, version_hash: bot.spec_hash },
      validation: { verdict: "PASS" },
      risk: { decision: "APPROVE" },
    },
    as("alice"),
  );
  const approved = await call(
    p.url,
    "POST",
    `/promotion/requests/promo-${slug}/approve`,
    {},
    as("bob"),
  );
  await eventually(
    "the promotion request is promoted",
    () => call(p.url, "GET", `/promotion/requests/promo-${slug}`),
    (r) => r.body.status === "promoted",
  );
  return approved.body.approved_promotion;
}

describe("paper trading, event-sourced state, halt and replay", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("pglite");
  });
  afterAll(async () => {
    await p?.close();
  });

  it("runs a paper session from an approved promotion, records events, halts, replays", async () => {
    const token = await approvedBot(p, "paper-bot");
    const refused = await call(p.url, "POST", "/bots/paper-bot/paper/start", {});
    expect([refused.status, refused.body.error.code]).toEqual([403, "approved_promotion_required"]);
    const started = await call(p.url, "POST", "/bots/paper-bot/paper/start", {
      approved_promotion: token,
      speed: 400,
    });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ target: "paper", status: "running" });
    const again = await call(p.url, "POST", "/bots/paper-bot/paper/start", {
      approved_promotion: token,
    });
    expect([again.status, again.body.error.code]).toEqual([409, "session_running"]);

    const events = await eventually(
      "the session fills an order",
      () => call(p.url, "GET", "/bots/paper-bot/state/events?limit=500"),
      (r) => r.body.items.some((e: { type: string }) => e.type === "order_filled"),
    );
    const types = new Set(events.body.items.map((e: { type: string }) => e.type));
    for (const t of [
      "session_started",
      "phase_changed",
      "bar_received",
      "order_placed",
      "order_filled",
      "position_changed",
    ])
      expect(types.has(t)).toBe(true);
    expect(events.body.items.map((e: { seq: string }) => Number(e.seq))).toEqual(
      events.body.items.map((_: unknown, i: number) => i + 1),
    );

    const snap = await call(p.url, "GET", "/bots/paper-bot/state/snapshot");
    expect(snap.body.metrics.phase).toBe("Running");
    expect(snap.body.metrics.bars).toBeGreaterThan(0);

    const halted = await call(p.url, "POST", "/bots/paper-bot/halt", { reason: "risk limit" });
    expect(halted.body).toMatchObject({
      scope: "bot",
      halted: 1,
      task_ids: [started.body.task_id],
    });
    const after = await call(p.url, "GET", "/bots/paper-bot/state/snapshot");
    expect(after.body.metrics.phase).toBe("Stopped");
    expect(after.body.metrics.open_orders).toBe(0);
    const deployments = await call(p.url, "GET", "/bots/paper-bot/deployments");
    expect(deployments.body.items[0]).toMatchObject({
      task_id: started.body.task_id,
      status: "halted",
    });
    const phases = (
      await call(p.url, "GET", `/bots/paper-bot/state/events?after_seq=${after.body.seq - 6}`)
    ).body.items
      .filter((e: { type: string }) => e.type === "phase_changed")
      .map((e: { data: { phase: string } }) => e.data.phase);
    expect(phases).toEqual(["Draining", "Stopped"]);

    const earlier = await call(p.url, "POST", "/bots/paper-bot/replay", {
      as_of_seq: 10,
      rerun_strategy: true,
    });
    expect(earlier.body.as_of_seq).toBe("10");
    expect(earlier.body.state.metrics.bars).toBeLessThan(after.body.metrics.bars);
    expect(earlier.body.deterministic).toBe(true);
    const whole = await call(p.url, "POST", "/bots/paper-bot/replay", { rerun_strategy: true });
    expect(whole.body.state.positions).toEqual(after.body.positions);
    expect(whole.body.deterministic).toBe(true);
  });

  it("stops one session cleanly, and says what is wrong otherwise", async () => {
    const token = await approvedBot(p, "stop-bot");
    const started = await call(p.url, "POST", "/bots/stop-bot/paper/start", {
      approved_promotion: token,
      speed: 50,
    });
    const stopped = await call(p.url, "POST", `/bots/stop-bot/paper/stop/${started.body.task_id}`);
    expect(stopped.body.status).toBe("success");
    expect(
      (await call(p.url, "POST", `/bots/stop-bot/paper/stop/${started.body.task_id}`)).status,
    ).toBe(409);
    const unknown = await call(p.url, "POST", "/bots/stop-bot/paper/stop/paper-nope");
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "task_not_found"]);
    const k8s = await call(p.url, "POST", "/bots/stop-bot/deploy", {
      target: "k8s",
      approved_promotion: token,
    });
    expect([k8s.status, k8s.body.error.details.setting]).toEqual([412, "SVC_KUBE_API_URL"]);
  });

  it("halts what runs an artifact when its promotion is revoked", async () => {
    const token = await approvedBot(p, "revoked-bot");
    const started = await call(p.url, "POST", "/bots/revoked-bot/paper/start", {
      approved_promotion: token,
      speed: 50,
    });
    expect(started.body.status).toBe("running");
    await call(
      p.url,
      "POST",
      "/promotion/requests/promo-revoked-bot/revoke",
      { reason: "model risk" },
      as("bob"),
    );
    const after = await eventually(
      "the session halts on revocation",
      () => call(p.url, "GET", "/bots/revoked-bot/deployments"),
      (r) => r.body.items[0].status === "halted",
    );
    expect(after.body.items[0]).toMatchObject({ task_id: started.body.task_id, status: "halted" });
    const restart = await call(p.url, "POST", "/bots/revoked-bot/paper/start", {
      approved_promotion: token,
    });
    expect(restart.body.error.message).toMatch(/was revoked/);
  });

  it("pages through thousands of events with a cursor", async () => {
    await call(p.url, "POST", "/bots", spec("many-events"));
    const bot = (await call(p.url, "GET", "/bots/many-events")).body;
    const { appendEvents } = await import("@svc/bots/events");
    const { schemaDb } = await import("@svc/lib/db");
    const db = schemaDb(p.platform.db.db, "bots") as never;
    for (let k = 0; k < 5; k++)
      await appendEvents(
        db,
        bot.id,
        "synthetic",
        Array.from({ length: 500 }, (_, i) => ({
          type: "bar_received" as const,
          data: { index: k * 500 + i, time: 0, open: 1, high: 1, low: 1, close: 1 },
        })),
      );
    const seen: number[] = [];
    let cursor = "0";
    while (cursor) {
      const page = await call(
        p.url,
        "GET",
        `/bots/many-events/state/events?after_seq=${cursor}&limit=700`,
      );
      seen.push(...page.body.items.map((e: { seq: string }) => Number(e.seq)));
      cursor = page.body.next_cursor;
    }
    expect(seen).toEqual(Array.from({ length: 2500 }, (_, i) => i + 1));
    expect((await call(p.url, "GET", "/bots/many-events/state/snapshot")).body.metrics.bars).toBe(
      2500,
    );
    // Written as the events were appended, one every 500; reading added none.
    const checkpoints = await sql<{
      seq: number;
    }>`select seq::int as seq from bots.bot_checkpoints where bot_id = ${bot.id} order by seq`.execute(
      p.platform.db.db,
    );
    expect(checkpoints.rows.map((r) => r.seq)).toEqual([500, 1000, 1500, 2000, 2500]);
  });
});

describe("a paper session survives a restart of its service (Postgres)", () => {
  it(
    "resumes from its events without losing or repeating a bar",
    async () => {
      const db = await createTestDatabase();
      const keys = ephemeralStatementKeyPem();
      const env = {
        SVC_DATABASE_URL: db.url,
        SVC_PROMOTION_SIGNING_KEY_PEM: keys.privateKeyPem,
        SVC_PROMOTION_PUBLIC_KEY_PEM: keys.publicKeyPem,
      };
      let p = await startTestPlatform("postgres", env);
      try {
        const token = await approvedBot(p, "durable");
        const started = await call(p.url, "POST", "/bots/durable/paper/start", {
          approved_promotion: token,
          speed: 200,
        });
        const barsSeen = async (platform: RunningPlatform) =>
          (
            await sql<{
              i: number;
            }>`select (data->>'index')::int as i from bots.bot_events where type = 'bar_received' order by seq`.execute(
              platform.platform.db.db,
            )
          ).rows.map((r) => r.i);
        await eventually(
          "the session records 20 bars",
          () => barsSeen(p),
          (b) => b.length >= 20,
        );
        await p.close();
        p = await startTestPlatform("postgres", env);
        const before = (await barsSeen(p)).length;
        const bars = await eventually(
          "the resumed session records 20 more bars",
          () => barsSeen(p),
          (b) => b.length >= before + 20,
        );
        expect(bars).toEqual(Array.from({ length: bars.length }, (_, i) => i));
        expect((await call(p.url, "GET", "/bots/durable/deployments")).body.items[0]).toMatchObject(
          {
            task_id: started.body.task_id,
            status: "running",
          },
        );
        expect(
          (await call(p.url, "POST", `/bots/durable/paper/stop/${started.body.task_id}`)).body
            .status,
        ).toBe("success");
      } finally {
        await p.close();
        await db.drop();
      }
    },
    PLATFORM_START_TIMEOUT_MS,
  );
});
