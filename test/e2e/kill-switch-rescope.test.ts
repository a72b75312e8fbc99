import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "redis";
import type { RunningPlatform } from "@svc/all-in-one";
import { eventually } from "../support/until.js";
import { call, startTestPlatform } from "../support/test-platform.js";
import { createBotTheKillSwitchKnows } from "../support/known-bot.js";
import { startPrivateRedis, type PrivateServer } from "../support/private-servers.js";

const PLATFORM_KEY = "svc:bots:killswitch:platform:platform";
const BOT_KEY = "svc:bots:killswitch:bot:night-bot";
const FLEET_KEY = "svc:bots:killswitch:fleet:night";

interface AuditRow {
  seq: string;
  occurred_at: string;
  action: string;
  actor: { subject: string };
  details: Record<string, unknown>;
}

// An operator reusing a switch's name under another scope, at 3 a.m.: nothing is released
// unless the request says it means it, and every release has its own audit row.
describe("a kill switch keeps its scope and target unless a rescope is asked for", () => {
  let p: RunningPlatform;
  let redis: PrivateServer;
  const put = (name: string, spec: object, query = "") =>
    call(p.url, "PUT", `/kill-switches/${name}${query}`, spec);
  const keyHolds = async (key: string): Promise<string[]> => {
    const c = createClient({ url: redis.url });
    await c.connect();
    try {
      const v = await c.get(key);
      return v === null ? [] : Object.keys((JSON.parse(v) as { switches: object }).switches);
    } finally {
      await c.quit();
    }
  };
  /**
   * The switch's audit rows in the order its service recorded them: the chain's seq is the order
   * the identity service received them, which the outbox does not promise across transactions.
   */
  // Timestamps in protobuf's JSON carry 0, 3, 6 or 9 fractional digits (a row at a whole second
  // has none), so their strings do not sort as their times do.
  const at = (r: AuditRow) => Date.parse(r.occurred_at);
  const auditOf = async (name: string) =>
    (
      (await call(p.url, "GET", `/admin/audit-events?resource=kill_switch%2F${name}&limit=1000`))
        .body.items as AuditRow[]
    ).sort((a, b) => at(a) - at(b) || Number(a.seq) - Number(b.seq));
  const platformSwitch = {
    scope: "platform",
    target: "platform",
    mode: "cancel",
    reason: "outage",
  };
  const botSwitch = { scope: "bot", target: "night-bot", mode: "cancel", reason: "one bad bot" };

  beforeAll(async () => {
    redis = await startPrivateRedis();
    p = await startTestPlatform("postgres", { SVC_REDIS_URL: redis.url });
    await createBotTheKillSwitchKnows(p, "night-bot", "night");
  }, 60_000);
  afterEach(async () => {
    const listed = await call(p.url, "GET", "/kill-switches");
    for (const s of (listed.body?.items ?? []) as { metadata: { name: string } }[])
      await call(p.url, "DELETE", `/kill-switches/${s.metadata.name}`);
  });
  afterAll(async () => {
    await p?.close();
    await redis?.stop();
  });

  it("refuses to move a platform switch to a bot by reusing its name: 409 naming what differs, the platform stays halted", async () => {
    expect((await put("incident", platformSwitch)).status).toBe(200);
    const reused = await put("incident", botSwitch);
    expect(reused.status).toBe(409);
    expect(reused.body.error).toMatchObject({
      code: "killswitch_scope_differs",
      details: {
        name: "incident",
        differs: "scope,target",
        engaged_scope: "platform",
        engaged_target: "platform",
        requested_scope: "bot",
        requested_target: "night-bot",
      },
    });
    expect(reused.body.error.message).toMatch(/release it first/i);
    expect(reused.body.error.message).toMatch(/rescope=true/);
    expect(await keyHolds(PLATFORM_KEY)).toEqual(["incident"]);
    expect(await keyHolds(BOT_KEY)).toEqual([]);
    expect((await call(p.url, "GET", "/kill-switches/incident")).body.spec).toMatchObject({
      scope: "platform",
      target: "platform",
      reason: "outage",
    });
    const trail = await eventually(
      "the engagement reaches the audit trail",
      () => auditOf("incident"),
      (rows) => rows.length > 0,
    );
    expect(trail.map((r) => r.action)).toEqual(["killswitch.engaged"]);
  });

  it("a fleet switch re-applied on another fleet's name is refused the same way (the target alone differs)", async () => {
    expect(
      (await put("fleet-hold", { ...botSwitch, scope: "fleet", target: "night" })).status,
    ).toBe(200);
    const other = await put("fleet-hold", { ...botSwitch, scope: "fleet", target: "day" });
    expect([other.status, other.body.error.details.differs]).toEqual([409, "target"]);
    expect(await keyHolds(FLEET_KEY)).toEqual(["fleet-hold"]);
    expect(await keyHolds("svc:bots:killswitch:fleet:day")).toEqual([]);
  });

  it("moves it when asked with rescope=true: the old key is released with its own audit row naming who and why, before the new engagement", async () => {
    expect((await put("moving", platformSwitch)).status).toBe(200);
    const moved = await put("moving", botSwitch, "?rescope=true");
    expect(moved.status).toBe(200);
    expect(moved.body.spec).toMatchObject({ scope: "bot", target: "night-bot" });
    expect(await keyHolds(PLATFORM_KEY)).toEqual([]);
    expect(await keyHolds(BOT_KEY)).toEqual(["moving"]);
    const trail = await eventually(
      "the move reaches the audit trail",
      () => auditOf("moving"),
      (rows) => rows.length >= 3,
    );
    // The release and the new engagement are one transaction: both rows, the release first.
    const released = trail.filter((r) => r.action === "killswitch.released");
    const engaged = trail.filter((r) => r.action === "killswitch.engaged");
    expect([trail.length, released.length, engaged.length]).toEqual([3, 1, 2]);
    expect(released[0]).toMatchObject({
      actor: { subject: "local|default" },
      details: { key: PLATFORM_KEY, moved_to: BOT_KEY },
    });
    expect(released[0]!.details.reason).toMatch(/rescope.*one bad bot/);
    const movedIn = engaged.find((r) => r.details.key === BOT_KEY)!;
    expect(movedIn.details).toMatchObject({ moved_from: PLATFORM_KEY });
    expect(at(released[0]!) <= at(movedIn)).toBe(true);
  });

  it("changes mode and reason in place, stricter or looser, and the audit row says what changed", async () => {
    expect((await put("tune", { ...botSwitch, mode: "freeze" })).status).toBe(200);
    const stricter = await put("tune", { ...botSwitch, mode: "flatten", reason: "losses" });
    expect(stricter.status).toBe(200);
    const looser = await put("tune", { ...botSwitch, mode: "cancel", reason: "losses" });
    expect(looser.status).toBe(200);
    expect(await keyHolds(BOT_KEY)).toEqual(["tune"]);
    const trail = await eventually(
      "the changes reach the audit trail",
      () => auditOf("tune"),
      (rows) => rows.length >= 3,
    );
    expect(trail.map((r) => [r.action, r.details.changed])).toEqual([
      ["killswitch.engaged", undefined],
      [
        "killswitch.changed",
        {
          mode: { from: "freeze", to: "flatten" },
          reason: { from: "one bad bot", to: "losses" },
        },
      ],
      ["killswitch.changed", { mode: { from: "flatten", to: "cancel" } }],
    ]);
  });

  it("two PUTs racing to create one name under different scopes: one wins, the other is refused, one key holds it", async () => {
    const answers = await Promise.all([
      put("race", platformSwitch),
      put("race", botSwitch),
      put("race", { ...botSwitch, scope: "fleet", target: "night" }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409]);
    const winner = answers.find((a) => a.status === 200)!.body.spec as { scope: string };
    const holders = await Promise.all([PLATFORM_KEY, BOT_KEY, FLEET_KEY].map(keyHolds));
    expect(holders.filter((h) => h.includes("race"))).toHaveLength(1);
    expect((await call(p.url, "GET", "/kill-switches/race")).body.spec.scope).toBe(winner.scope);
  });

  it("a release records who released it and the reason given", async () => {
    expect((await put("short", botSwitch)).status).toBe(200);
    expect(
      (await call(p.url, "DELETE", "/kill-switches/short?reason=bot%20fixed%20by%20desk")).status,
    ).toBe(200);
    expect(await keyHolds(BOT_KEY)).toEqual([]);
    const trail = await eventually(
      "the release reaches the audit trail",
      () => auditOf("short"),
      (rows) => rows.length >= 2,
    );
    expect(trail[1]).toMatchObject({
      action: "killswitch.released",
      actor: { subject: "local|default" },
      details: { key: BOT_KEY, reason: "bot fixed by desk" },
    });
  });
});
