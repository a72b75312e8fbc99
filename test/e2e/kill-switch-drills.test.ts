import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import { approvedSession, statusOf } from "../support/paper.js";
import { eventually } from "../support/until.js";
import { call, startTestPlatform } from "../support/test-platform.js";
import {
  startPrivateNats,
  startPrivateRedis,
  type PrivateServer,
} from "../support/private-servers.js";

/** Short bounds through settings, so a drill that must wait out a bound does so in seconds. */
const DRAINING_S = 3;
const STOPPED_HF_S = 5;
const STOPPED_S = 20;

interface BotResult {
  task_id: string;
  bot_slug: string;
  high_frequency: boolean;
  high_frequency_basis: string;
  draining_bound_ms: number;
  stopped_bound_ms: number;
  draining_ms?: number;
  stopped_ms?: number;
  restarted: boolean;
  verdict: string | null;
  misses: Array<{ bound: string; bound_ms: number; observed_ms?: number; message: string }>;
}
interface Drill {
  id: string;
  state: string;
  verdict: string | null;
  bots: number;
  started_at: string;
  ended_at?: string;
  release_by?: string;
  note: string;
  per_bot: BotResult[];
}

const drillOf = async (p: RunningPlatform, id: string) =>
  (await call(p.url, "GET", `/kill-switch/drills/${id}`)).body as Drill;
const finished = (p: RunningPlatform, id: string, ms: number) =>
  eventually(
    `drill ${id} ends`,
    () => drillOf(p, id),
    (d) => d.state !== "running",
    ms,
  );
const bySlug = (d: Drill) => Object.fromEntries(d.per_bot.map((b) => [b.bot_slug, b]));
const lasted = (d: Drill) => Date.parse(d.ended_at!) - Date.parse(d.started_at);

describe("kill-switch drills judged against their bounds", () => {
  let p: RunningPlatform;
  let redis: PrivateServer;
  let nats: PrivateServer;
  const running = ["hf-flag", "hf-bars", "steady"];

  beforeAll(async () => {
    redis = await startPrivateRedis();
    nats = await startPrivateNats();
    p = await startTestPlatform("pglite", {
      SVC_REDIS_URL: redis.url,
      SVC_NATS_URL: nats.url,
      SVC_KILLSWITCH_POLL_INTERVAL_S: "1",
      SVC_KILLSWITCH_DRILL_DRAINING_S: String(DRAINING_S),
      SVC_KILLSWITCH_DRILL_STOPPED_HF_S: String(STOPPED_HF_S),
      SVC_KILLSWITCH_DRILL_STOPPED_S: String(STOPPED_S),
      // A session held by another host stays its own for the whole file (see the frozen runner).
      SVC_RUNNER_LEASE_S: "600",
    });
  }, 60_000);
  afterAll(async () => {
    await p?.close();
    await nats?.stop();
    await redis?.stop();
  });

  it("a drill with no running bot says so rather than passing, and engages nothing", async () => {
    const drill = await call(p.url, "POST", "/kill-switch/drills", { reason: "empty drill" });
    expect(drill.status).toBe(202);
    expect(drill.body).toMatchObject({
      state: "finished",
      verdict: "no_bots",
      bots: 0,
      per_bot: [],
      reason: "empty drill",
      started_by: "local|default",
    });
    expect(drill.body.note).toMatch(/no bot was running/);
    expect((await call(p.url, "GET", "/kill-switches")).body.items).toEqual([]);

    // The quarter counts it; the schedule is off until someone sets it.
    const schedule = await call(p.url, "GET", "/kill-switch/drills/schedule");
    expect(schedule.status, schedule.text).toBe(200);
    expect(schedule.body.schedule.enabled).toBe(false);
    expect(schedule.body.quarters[0]).toMatchObject({ drills_finished: 1, missed: false });
    const bad = await call(p.url, "PUT", "/kill-switch/drills/schedule", {
      enabled: true,
      month_of_quarter: 1,
      day_of_month: 30,
    });
    expect([bad.status, bad.body.error.details.field]).toEqual([400, "day_of_month"]);
    const unset = await call(p.url, "PUT", "/kill-switch/drills/schedule", { enabled: true });
    expect([unset.status, unset.body.error.details.field]).toEqual([400, "month_of_quarter"]);
  });

  it("a drill on running paper bots passes, each bot judged against its own bound, and ends once all stopped", async () => {
    await approvedSession(p, "hf-flag", "drills", 20, { engine: { high_frequency: true } });
    await approvedSession(p, "hf-bars", "drills", 20, { universe: { timeframe: "15s" } });
    await approvedSession(p, "steady", "drills", 20, { universe: { timeframe: "1h" } });
    await eventually(
      "the three sessions run",
      () => Promise.all(running.map((s) => statusOf(p, s))),
      (s) => s.every((x) => x === "running"),
    );

    const started = await call(p.url, "POST", "/kill-switch/drills", { reason: "quarterly drill" });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ state: "running", verdict: null, bots: 3 });
    expect(Date.parse(started.body.release_by)).toBeGreaterThan(
      Date.parse(started.body.started_at),
    );
    const planned = bySlug(started.body as Drill);
    expect(planned["hf-flag"]).toMatchObject({
      high_frequency: true,
      high_frequency_basis: "engine.high_frequency is set",
      draining_bound_ms: DRAINING_S * 1_000,
      stopped_bound_ms: STOPPED_HF_S * 1_000,
    });
    expect(planned["hf-bars"]).toMatchObject({
      high_frequency: true,
      high_frequency_basis: "bars of 15s, under one minute",
      stopped_bound_ms: STOPPED_HF_S * 1_000,
    });
    expect(planned["steady"]).toMatchObject({
      high_frequency: false,
      stopped_bound_ms: STOPPED_S * 1_000,
    });
    // One drill at a time: a second would time the first one's halt.
    const second = await call(p.url, "POST", "/kill-switch/drills", {});
    expect(second.status).toBe(409);
    expect(second.body.error).toMatchObject({
      code: "drill_running",
      details: { id: started.body.id },
    });

    const drill = await finished(p, started.body.id, STOPPED_S * 1_000);
    expect(drill).toMatchObject({ state: "finished", verdict: "pass", bots: 3 });
    for (const b of drill.per_bot) {
      expect(b.verdict, JSON.stringify(b)).toBe("pass");
      expect(b.misses).toEqual([]);
      expect(b.draining_ms).toBeLessThanOrEqual(b.draining_bound_ms);
      expect(b.stopped_ms).toBeLessThanOrEqual(b.stopped_bound_ms);
      expect(b.stopped_ms).toBeGreaterThanOrEqual(b.draining_ms!);
      expect(b.restarted).toBe(true);
    }
    // Every bot stopped: the drill did not wait out the ordinary bot's Stopped bound.
    expect(lasted(drill)).toBeLessThan(STOPPED_S * 1_000);
    expect((await call(p.url, "GET", "/kill-switches")).body.items).toEqual([]);
    await eventually(
      "every session runs again after the drill",
      () => Promise.all(running.map((s) => statusOf(p, s))),
      (s) => s.every((x) => x === "running"),
    );
  }, 120_000);

  it("a bot whose runner never announces a phase fails naming each bound, and fails the drill", async () => {
    // A session another host holds under a fresh lease, whose runner is frozen: the bots service
    // lists it as running, nothing in this process runs it, and it never announces a phase.
    const bot = await call(p.url, "POST", "/bots", {
      name: "frozen",
      slug: "frozen",
      kind: "trading",
      fleet: "drills",
      engine: { high_frequency: true },
      strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
    });
    expect(bot.status).toBe(201);
    await sql`insert into bots.bot_deployments (id, bot_id, version, target, status, task_id, request, host, host_seen_at)
      values (gen_random_uuid(), ${bot.body.id}, 1, 'paper', 'running', 'pt-frozen',
              ${JSON.stringify({ data_source: "synthetic:1", speed: 1 })}, 'elsewhere:7:frozen', now())`.execute(
      p.platform.db.db,
    );
    try {
      const started = await call(p.url, "POST", "/kill-switch/drills", { reason: "frozen runner" });
      expect(started.status).toBe(202);
      expect(started.body.bots).toBe(4);
      const drill = await finished(p, started.body.id, STOPPED_S * 1_000);
      expect(drill.verdict).toBe("fail");
      const judged = bySlug(drill);
      expect(judged["frozen"]).toMatchObject({
        task_id: "pt-frozen",
        high_frequency: true,
        verdict: "fail",
        restarted: false,
        misses: [
          {
            bound: "draining",
            bound_ms: DRAINING_S * 1_000,
            message: `Draining not observed within its bound of ${DRAINING_S} s`,
          },
          {
            bound: "stopped",
            bound_ms: STOPPED_HF_S * 1_000,
            message: `Stopped not observed within its bound of ${STOPPED_HF_S} s`,
          },
        ],
      });
      expect(judged["frozen"]!.draining_ms).toBeUndefined();
      expect(judged["frozen"]!.misses.map((m) => m.observed_ms)).toEqual([undefined, undefined]);
      for (const slug of running) expect(judged[slug]!.verdict).toBe("pass");
      // It waited out the frozen bot's bound (high-frequency), not the ordinary one's.
      expect(lasted(drill)).toBeGreaterThanOrEqual(STOPPED_HF_S * 1_000);
      expect((await call(p.url, "GET", "/kill-switches")).body.items).toEqual([]);
    } finally {
      await sql`update bots.bot_deployments set status = 'halted' where task_id = 'pt-frozen'`.execute(
        p.platform.db.db,
      );
    }
  }, 120_000);

  it("serves one drill, a year's drills oldest first, and refuses a bad id or year naming it", async () => {
    const year = new Date().getUTCFullYear();
    const listed = (await call(p.url, "GET", `/kill-switch/drills?year=${year}`)).body
      .items as Drill[];
    expect(listed.map((d) => d.verdict)).toEqual(["no_bots", "pass", "fail"]);
    expect((await call(p.url, "GET", `/kill-switch/drills?year=${year - 1}`)).body.items).toEqual(
      [],
    );
    const latest = (await call(p.url, "GET", "/kill-switch/drills")).body.items as Drill[];
    expect(latest.map((d) => d.id)).toEqual(listed.map((d) => d.id).reverse());

    const badYear = await call(p.url, "GET", "/kill-switch/drills?year=1999");
    expect(badYear.status).toBe(400);
    expect(JSON.stringify(badYear.body.error)).toMatch(/year/);
    const badId = await call(p.url, "GET", "/kill-switch/drills/not-a-uuid");
    expect(badId.status).toBe(400);
    expect(JSON.stringify(badId.body.error)).toMatch(/id/);
    const unknown = await call(
      p.url,
      "GET",
      "/kill-switch/drills/00000000-0000-4000-8000-000000000000",
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("drill_not_found");
  });

  it("a drill left running by a dead process is released by its switch's TTL and recorded interrupted", async () => {
    // What a process that died mid-drill leaves: the drill's switch on the platform key with its
    // TTL, and the drill row still running, its release moment long past.
    const id = "0badc0de-0000-4000-8000-000000000001";
    const engaged = await call(p.url, "PUT", "/kill-switches/drill-0badc0de", {
      scope: "platform",
      target: "platform",
      mode: "cancel",
      reason: "drill of a process that died",
      ttl: "2s",
    });
    expect(engaged.status).toBe(200);
    await sql`insert into killswitch.drills (id, started_at, started_by, reason, result, state, switch_name, release_by)
      values (${id}, now() - interval '10 minutes', 'local|default', 'dead drill',
              ${JSON.stringify({ bots: 0, draining_p50_ms: 0, draining_max_ms: 0, stopped_max_ms: 0, all_restarted: false, per_bot: [] })},
              'running', 'drill-0badc0de', now() - interval '5 minutes')`.execute(p.platform.db.db);
    await eventually(
      "the sessions halt under the dead drill's switch",
      () => Promise.all(running.map((s) => statusOf(p, s))),
      (s) => s.every((x) => x === "halted"),
    );
    const swept = await eventually(
      "the drill is recorded interrupted",
      () => drillOf(p, id),
      (d) => d.state === "interrupted",
    );
    expect(swept.verdict).toBeNull();
    expect(swept.note).toMatch(/stopped before judging it/);
    await eventually(
      "the switch lapses by its TTL and every session runs again",
      async () => ({
        switches: (await call(p.url, "GET", "/kill-switches")).body.items.length as number,
        statuses: await Promise.all(running.map((s) => statusOf(p, s))),
      }),
      (s) => s.switches === 0 && s.statuses.every((x) => x === "running"),
    );
  }, 60_000);
});
