import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { createClient } from "redis";
import type { RunningPlatform } from "@svc/all-in-one";
import { eventually } from "../support/until.js";
import { call, startTestPlatform } from "../support/test-platform.js";
import { createBotTheKillSwitchKnows } from "../support/known-bot.js";
import { approvedSession, statusOf } from "../support/paper.js";
import {
  startPrivateNats,
  startPrivateRedis,
  type PrivateServer,
} from "../support/private-servers.js";

const PLATFORM_KEY = "svc:bots:killswitch:platform:platform";

describe("kill switches sharing a key: one never releases another", () => {
  let p: RunningPlatform;
  let redis: PrivateServer;
  const rawGet = async (key: string) => {
    const c = createClient({ url: redis.url });
    await c.connect();
    try {
      return await c.get(key);
    } finally {
      await c.quit();
    }
  };
  const rawSet = async (key: string, value: string | null) => {
    const c = createClient({ url: redis.url });
    await c.connect();
    if (value === null) await c.del(key);
    else await c.set(key, value);
    await c.quit();
  };
  const put = (name: string, spec: object) => call(p.url, "PUT", `/kill-switches/${name}`, spec);
  const keyValue = async (key: string) => {
    const v = await rawGet(key);
    return v === null
      ? null
      : (JSON.parse(v) as {
          mode: string;
          reason: string;
          switches: Record<string, unknown>;
          manual?: string;
        });
  };

  beforeAll(async () => {
    redis = await startPrivateRedis();
    p = await startTestPlatform("postgres", { SVC_REDIS_URL: redis.url });
    await createBotTheKillSwitchKnows(p, "shared", "f1");
  }, 60_000);
  afterAll(async () => {
    await p?.close();
    await redis?.stop();
  });

  it("keeps the strictest mode while both are engaged, and releasing one leaves the other", async () => {
    expect(
      (
        await put("incident-42", {
          scope: "platform",
          target: "platform",
          mode: "flatten",
          reason: "exchange outage",
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await put("drill-x", {
          scope: "platform",
          target: "platform",
          mode: "cancel",
          reason: "drill",
        })
      ).status,
    ).toBe(200);
    const both = await keyValue(PLATFORM_KEY);
    expect(both?.mode).toBe("flatten");
    expect(Object.keys(both!.switches).sort()).toEqual(["drill-x", "incident-42"]);
    expect(both?.reason).toMatch(/^exchange outage/);

    expect((await call(p.url, "DELETE", "/kill-switches/drill-x")).status).toBe(200);
    const left = await keyValue(PLATFORM_KEY);
    expect(left).toMatchObject({ mode: "flatten", reason: "exchange outage" });
    expect(Object.keys(left!.switches)).toEqual(["incident-42"]);
    const listed = (await call(p.url, "GET", "/kill-switches")).body;
    expect(listed.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual([
      "incident-42",
    ]);
    expect(listed.items[0].status).toMatchObject({ engaged: true, key_state: "written" });

    expect((await call(p.url, "DELETE", "/kill-switches/incident-42")).status).toBe(200);
    expect(await rawGet(PLATFORM_KEY)).toBeNull();
  });

  it("a TTL switch lapsing does not release an untimed switch on the same bot", async () => {
    await put("hold", { scope: "bot", target: "shared", mode: "cancel", reason: "investigation" });
    await put("brief", {
      scope: "bot",
      target: "shared",
      mode: "freeze",
      reason: "blip",
      ttl: "2s",
    });
    expect(
      Object.keys((await keyValue("svc:bots:killswitch:bot:shared"))!.switches).sort(),
    ).toEqual(["brief", "hold"]);
    await eventually(
      "the 2 s switch is gone",
      () => call(p.url, "GET", "/kill-switches/brief"),
      (r) => r.status === 404,
      6_000,
    );
    const after = await keyValue("svc:bots:killswitch:bot:shared");
    expect(after).toMatchObject({ mode: "cancel", reason: "investigation" });
    expect(Object.keys(after!.switches)).toEqual(["hold"]);
    const released = await eventually(
      "the lapse reaches the platform's audit trail",
      async () =>
        (await call(p.url, "GET", "/admin/audit-events?action=killswitch.released")).body
          .items as Array<{ actor: { subject: string }; details: Record<string, unknown> }>,
      (items) => items.some((e) => e.details.name === "brief"),
    );
    expect(released.find((e) => e.details.name === "brief")).toMatchObject({
      actor: { subject: "system:ttl-sweep" },
      details: { reason: "ttl elapsed" },
    });
    await call(p.url, "DELETE", "/kill-switches/hold");
    expect(await rawGet("svc:bots:killswitch:bot:shared")).toBeNull();
  });

  it("a key set by hand is one more engager that only its own release removes", async () => {
    await rawSet("svc:bots:killswitch:fleet:f1", "operator: halt f1");
    expect(
      (await put("f1-switch", { scope: "fleet", target: "f1", mode: "flatten", reason: "risk" }))
        .status,
    ).toBe(200);
    expect(await keyValue("svc:bots:killswitch:fleet:f1")).toMatchObject({
      mode: "flatten",
      manual: "operator: halt f1",
    });
    await call(p.url, "DELETE", "/kill-switches/f1-switch");
    // The hand-set engager stays; the listing shows it under the name of a hand-set key.
    expect(await keyValue("svc:bots:killswitch:fleet:f1")).toMatchObject({
      mode: "cancel",
      reason: "operator: halt f1",
      switches: {},
    });
    const listed = (await call(p.url, "GET", "/kill-switches")).body.items;
    expect(listed).toEqual([
      expect.objectContaining({
        metadata: { name: "kv-fleet-f1" },
        spec: expect.objectContaining({ reason: "operator: halt f1" }),
      }),
    ]);
    expect((await call(p.url, "DELETE", "/kill-switches/kv-fleet-f1")).status).toBe(200);
    expect(await rawGet("svc:bots:killswitch:fleet:f1")).toBeNull();
  });

  it("validates everything before any side effect: a NUL reason or an endless TTL writes no key, row or audit", async () => {
    const audits = async () =>
      (
        await sql<{
          n: number;
        }>`select count(*)::int as n from killswitch.outbox where type = 'svc.events.v1.AuditRecorded'`.execute(
          p.platform.db.db,
        )
      ).rows[0]!.n;
    const before = await audits();
    const nul = await put("bad-reason", {
      scope: "platform",
      target: "platform",
      mode: "cancel",
      reason: "a\u0000b",
    });
    expect(nul.status).toBe(400);
    expect(nul.body.error.details.field).toMatch(/reason/);
    const endless = await put("endless", {
      scope: "platform",
      target: "platform",
      mode: "cancel",
      reason: "x",
      ttl: "100000000h",
    });
    expect(endless.status).toBe(400);
    expect(endless.body.error.details.field).toMatch(/ttl/);
    expect(endless.body.error.message).toMatch(/720h/);
    expect(await rawGet(PLATFORM_KEY)).toBeNull();
    expect(await audits()).toBe(before);
    const listed = await call(p.url, "GET", "/kill-switches");
    expect([listed.status, listed.body.items]).toEqual([200, []]);
  });

  it("the key and the rows agree again after a crash between them, either way round", async () => {
    // A crash after commit, before the key write: the row exists, the key does not.
    await sql`insert into killswitch.kill_switches (name, scope, target, mode, reason, ttl, engaged_by) values ('orphan-row', 'fleet', 'f2', 'cancel', 'crashed', '', 'user|x')`.execute(
      p.platform.db.db,
    );
    const written = await eventually(
      "the reconciler writes the missing key",
      () => keyValue("svc:bots:killswitch:fleet:f2"),
      (v) => v !== null,
      5_000,
    );
    expect(Object.keys(written!.switches)).toEqual(["orphan-row"]);
    // A crash after the key write, before commit: the key names a switch that has no row.
    await rawSet(
      "svc:bots:killswitch:fleet:f3",
      JSON.stringify({
        mode: "cancel",
        reason: "ghost",
        switches: { ghost: { mode: "cancel", reason: "ghost", by: "x", expiresAt: null } },
      }),
    );
    await eventually(
      "the reconciler removes the switch without a row",
      () => rawGet("svc:bots:killswitch:fleet:f3"),
      (v) => v === null,
      5_000,
    );
    // A key deleted by hand while its switch is engaged comes back.
    await rawSet("svc:bots:killswitch:fleet:f2", null);
    await eventually(
      "the reconciler restores a deleted key",
      () => keyValue("svc:bots:killswitch:fleet:f2"),
      (v) => v !== null,
      5_000,
    );
    await call(p.url, "DELETE", "/kill-switches/orphan-row");
    expect(await rawGet("svc:bots:killswitch:fleet:f2")).toBeNull();
  });

  it("engages on a bot the moment it exists, before the killswitch service's projection has seen it", async () => {
    for (let i = 0; i < 5; i++) {
      await call(p.url, "POST", "/bots", {
        name: `fresh-${i}`,
        slug: `fresh-${i}`,
        kind: "trading",
      });
      const engaged = await put(`fresh-${i}`, {
        scope: "bot",
        target: `fresh-${i}`,
        mode: "cancel",
        reason: "at once",
      });
      expect([engaged.status, engaged.body.error]).toEqual([200, undefined]);
      await call(p.url, "DELETE", `/kill-switches/fresh-${i}`);
    }
    expect(
      (await put("nobody", { scope: "bot", target: "no-such-bot", mode: "cancel" })).status,
    ).toBe(400);
  });

  it("two engages racing on one key both end up in it", async () => {
    const names = Array.from({ length: 8 }, (_, i) => `race-${i}`);
    const answers = await Promise.all(
      names.map((n, i) =>
        put(n, {
          scope: "fleet",
          target: "racing",
          mode: i === 5 ? "flatten" : "cancel",
          reason: n,
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(names.map(() => 200));
    const v = await keyValue("svc:bots:killswitch:fleet:racing");
    expect(Object.keys(v!.switches).sort()).toEqual([...names].sort());
    expect(v?.mode).toBe("flatten");
    await Promise.all(names.map((n) => call(p.url, "DELETE", `/kill-switches/${n}`)));
    expect(await rawGet("svc:bots:killswitch:fleet:racing")).toBeNull();
  });
});

describe("a hung Redis never silences the kill switch", () => {
  let p: RunningPlatform;
  let redis: PrivateServer;
  let nats: PrivateServer;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    nats = await startPrivateNats();
    p = await startTestPlatform("postgres", {
      SVC_REDIS_URL: redis.url,
      SVC_NATS_URL: nats.url,
      SVC_KILLSWITCH_POLL_INTERVAL_S: "1",
      SVC_KV_TIMEOUT_MS: "300",
      SVC_BUS_TIMEOUT_MS: "500",
    });
    await approvedSession(p, "hung-1", "hung");
    await approvedSession(p, "hung-2", "hung");
  }, 60_000);
  afterAll(async () => {
    redis?.resume();
    await p?.close();
    await nats?.stop();
    await redis?.stop();
  });

  it("engage broadcasts and answers 503 naming the store; reads answer unknown; readiness fails; the key is written once Redis answers", async () => {
    redis.pause();
    const t0 = Date.now();
    const engaged = await call(p.url, "PUT", "/kill-switches/while-hung", {
      scope: "bot",
      target: "hung-1",
      mode: "cancel",
      reason: "redis hung",
    });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(engaged.status).toBe(503);
    expect(engaged.body.error).toMatchObject({
      code: "killswitch_not_durable",
      details: { not_durable: "key-value store" },
    });
    // The broadcast alone halts the bot.
    await eventually(
      "hung-1 halts on the broadcast",
      () => statusOf(p, "hung-1"),
      (s) => s === "halted",
      5_000,
    );
    expect(await statusOf(p, "hung-2")).toBe("running");

    const t1 = Date.now();
    const detail = await call(p.url, "GET", "/bots/hung-2");
    expect(Date.now() - t1).toBeLessThan(3_000);
    expect(detail.status).toBe(200);
    expect(detail.body.runtime.kill_switch_reason).toMatch(/^unknown/);
    const listed = await call(p.url, "GET", "/kill-switches");
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({
      key_store_unreachable: true,
      items: [
        expect.objectContaining({ status: expect.objectContaining({ key_state: "unknown" }) }),
      ],
    });
    expect((await call(p.url, "GET", "/readyz")).status).toBe(503);
    // Releasing while the store hangs releases nothing.
    const release = await call(p.url, "DELETE", "/kill-switches/while-hung");
    expect(release.status).toBe(503);

    redis.resume();
    const c = createClient({ url: redis.url });
    await c.connect();
    const v = await eventually(
      "the key is written once Redis answers",
      () => c.get("svc:bots:killswitch:bot:hung-1"),
      (x) => x !== null,
      5_000,
    );
    expect(JSON.parse(v!).switches).toHaveProperty("while-hung");
    await c.quit();
    expect(await statusOf(p, "hung-1")).toBe("halted");
    await eventually(
      "ready again",
      () => call(p.url, "GET", "/readyz"),
      (r) => r.status === 200,
      5_000,
    );
    expect((await call(p.url, "DELETE", "/kill-switches/while-hung")).status).toBe(200);
    await eventually(
      "hung-1 restarts on release",
      () => statusOf(p, "hung-1"),
      (s) => s === "running",
      5_000,
    );
  }, 40_000);

  it("with Redis hung and NATS down, a runner freezes within three poll intervals of going blind", async () => {
    await nats.stop();
    redis.pause();
    const t0 = Date.now();
    const frozen = await eventually(
      "hung-2 records a fail-safe freeze",
      async () =>
        (
          await sql<{
            at: Date;
          }>`select occurred_at as at from bots.bot_events e join bots.bots b on b.id = e.bot_id where b.slug = 'hung-2' and e.type = 'fail_safe' and e.data->>'frozen' = 'true'`.execute(
            p.platform.db.db,
          )
        ).rows,
      (rows) => rows.length > 0,
      12_000,
    );
    expect(frozen).toHaveLength(1);
    // Frozen means no new orders while bars go on: none placed after the freeze.
    await eventually(
      "hung-2 keeps receiving bars while frozen",
      async () =>
        (
          await sql<{
            n: number;
          }>`select count(*)::int as n from bots.bot_events e join bots.bots b on b.id = e.bot_id where b.slug = 'hung-2' and e.type = 'bar_received' and e.occurred_at > ${frozen[0]!.at}`.execute(
            p.platform.db.db,
          )
        ).rows[0]!.n,
      (n) => n >= 30,
      8_000,
    );
    const after = await sql<{
      n: number;
    }>`select count(*)::int as n from bots.bot_events e join bots.bots b on b.id = e.bot_id where b.slug = 'hung-2' and e.type = 'order_placed' and e.occurred_at > ${frozen[0]!.at}`.execute(
      p.platform.db.db,
    );
    expect(after.rows[0]!.n).toBe(0);
    expect(Date.now() - t0).toBeLessThan(12_000);
    redis.resume();
  }, 30_000);
});
