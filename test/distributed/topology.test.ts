import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import pg from "pg";
import { generateSecret } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { roleOf } from "../../scripts/distributed/database.js";
import {
  alive,
  startTopology,
  type Topology,
  type TopologyUser,
} from "../support/distributed-topology.js";
import {
  freePort,
  startPrivateNats,
  startPrivateRedis,
  type PrivateNats,
  type PrivateServer,
} from "../support/private-servers.js";
import { eventually } from "../support/until.js";
import { ed25519Pem } from "../support/license.js";
import { startPrivatePostgres, type PrivatePostgres } from "../support/private-postgres.js";

const CALL_MS = 20_000;

// `npm run start:distributed` as a person runs it: every service, two runners and the gateway in
// processes of their own, on a database of their own roles, with a Postgres, a NATS and a Redis
// of this test (so it may restart, stop and pause them), under OIDC with the dev provider. The README's journey runs against it,
// then the faults, then Ctrl-C must leave no process behind.
describe("the distributed topology (npm run start:distributed)", () => {
  const database = `svc_topo_${randomBytes(4).toString("hex")}`;
  const users: TopologyUser[] = ["alice", "bob", "admin"].map((username) => ({
    username,
    password: randomBytes(9).toString("base64url"),
    totpSecret: generateSecret(),
  }));
  let postgres: PrivatePostgres;
  let redis: PrivateServer;
  let nats: PrivateNats;
  let t: Topology;
  let admin: pg.Client;
  let hash = "";
  // The operator starts the topology with the lease-signing key in its environment.
  const leaseKey = ed25519Pem().privateKeyPem;
  const leaseKeyBody = leaseKey.split("\n")[1]!;

  async function api(
    method: string,
    path: string,
    user: "alice" | "bob" | "admin",
    body?: unknown,
    mfa = false,
  ) {
    const res = await fetch(`${t.gateway}${path}`, {
      method,
      signal: AbortSignal.timeout(CALL_MS),
      headers: {
        authorization: `Bearer ${await t.token(user, mfa)}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are judged by expect()
    const json: any = text ? JSON.parse(text) : undefined;
    return { status: res.status, body: json, headers: res.headers };
  }
  const sqlRows = async <R>(text: string, params: unknown[] = []) =>
    (await admin.query({ text, values: params, query_timeout: CALL_MS } as pg.QueryConfig))
      .rows as R[];
  const phaseOf = async () => (await api("GET", "/bots/demo", "alice")).body?.runtime?.phase;

  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    const base = new pg.Client({ connectionString: postgres.url });
    await base.connect();
    await base.query(`create database ${database}`);
    await base.end();
    const dbUrl = new URL(postgres.url);
    dbUrl.pathname = `/${database}`;
    redis = await startPrivateRedis();
    nats = await startPrivateNats();
    t = await startTopology(
      {
        SVC_PORT: String(await freePort()),
        SVC_DATABASE_URL: dbUrl.toString(),
        SVC_NATS_URL: nats.url,
        SVC_REDIS_URL: redis.url,
        SVC_DISTRIBUTED_RUNNERS: "2",
        SVC_RUNNER_LEASE_S: "3",
        SVC_KILLSWITCH_POLL_INTERVAL_S: "1",
        SVC_LOG_LEVEL: "warn",
        SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PEM: leaseKey,
      },
      users,
    );
    admin = new pg.Client({ connectionString: dbUrl.toString() });
    // The Postgres restart below cuts this connection too; only earlier cases use it.
    admin.on("error", () => {});
    await admin.connect();
  }, 150_000);

  afterAll(async () => {
    await admin?.end().catch(() => {});
    await t?.interrupt();
    await nats?.stop();
    await redis?.stop();
    await postgres?.stop();
  }, 60_000);

  it("runs the README journey: bot, backtest, four-eyes promotion, paper, kill switch and release", async () => {
    const created = await api("POST", "/bots", "alice", {
      name: "Demo",
      kind: "trading",
      fleet: "majors",
      strategy: { family: "ma_crossover", parameters: { fast: 10, slow: 30 } },
      engine: { initial_cash: 100000, fee_bps: 5, slippage_bps: 2, position_size: 1 },
    });
    expect(created).toMatchObject({ status: 201, body: { slug: "demo" } });
    const backtest = await api("POST", "/bots/demo/backtest", "alice", {
      data_source: "csv:sample-btc-usd-1d",
    });
    expect(backtest.body).toMatchObject({ target: "backtest", status: "pending" });
    const done = await eventually(
      "the backtest succeeds",
      () => api("GET", "/bots/demo/deployments", "alice"),
      (r) => r.body?.items?.[0]?.status === "success",
      60_000,
    );
    expect(done.body.items[0].result_summary).toMatchObject({ bars: 1000, trades: 19 });
    hash = (await api("GET", "/bots/demo", "alice")).body.spec_hash;
    const request = {
      request_id: "demo-1",
      kind: "strategy",
      artifact: { bot_ref: "demo", version: 1, version_hash: hash },
      validation: { verdict: "PASS" },
      risk: { decision: "APPROVE" },
    };
    expect((await api("POST", "/promotion/requests", "alice", request)).body).toMatchObject({
      status: "pending",
      requires_human_approval: true,
    });
    const own = await api("POST", "/promotion/requests/demo-1/approve", "alice", {}, true);
    expect(own.body.error.code).toBe("four_eyes_violation");
    const approved = await api("POST", "/promotion/requests/demo-1/approve", "bob", {}, true);
    expect(approved.status).toBe(200);
    const paper = await api("POST", "/bots/demo/paper/start", "alice", {
      approved_promotion: approved.body.approved_promotion,
      speed: 10,
    });
    expect(paper.body).toMatchObject({ target: "paper", status: "running" });
    await eventually(
      "the runner fills an order",
      () => api("GET", "/bots/demo/state/events?type=order_filled&limit=1", "alice"),
      (r) => r.body?.items?.length === 1,
      60_000,
    );
    const engaged = await api(
      "PUT",
      "/kill-switches/drill",
      "admin",
      { scope: "fleet", target: "majors", mode: "cancel", reason: "drill" },
      true,
    );
    expect(engaged.body).toMatchObject({ status: { engaged: true, key_state: "written" } });
    await eventually("the session stops", phaseOf, (p) => p === "Stopped", 20_000);
    const released = await api("DELETE", "/kill-switches/drill", "admin", undefined, true);
    expect(released.body).toMatchObject({ released: true });
    await eventually("the session runs again", phaseOf, (p) => p === "Running", 20_000);
  }, 180_000);

  it("gives each service a role that cannot read another service's schema", async () => {
    const [table] = await sqlRows<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'promotion' limit 1",
    );
    await admin.query(`set role ${roleOf(database, "bots")}`);
    try {
      await expect(admin.query(`select * from promotion.${table!.table_name}`)).rejects.toThrow(
        /permission denied for schema promotion/,
      );
    } finally {
      await admin.query("reset role");
    }
  });

  it("gives the lease-signing key to identity alone: no other child's environment holds it", async () => {
    const holders: string[] = [];
    for (const [name, pid] of Object.entries(t.pids)) {
      const environ = await readFile(`/proc/${pid}/environ`, "utf8");
      if (environ.includes(leaseKeyBody) || environ.includes("SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY"))
        holders.push(name);
    }
    expect(Object.keys(t.pids).length).toBeGreaterThanOrEqual(8);
    expect(holders).toEqual(["identity"]);
    // And identity signs with it: licensing is on.
    const served = await fetch(`${t.gateway}/auth/license/public-key`, {
      signal: AbortSignal.timeout(CALL_MS),
    });
    expect(served.status).toBe(200);
  });

  it("moves a SIGKILLed runner's session to another runner: events go on, no bar twice", async () => {
    const running = async () =>
      (
        await sqlRows<{ host: string; bot_id: string }>(
          "select host, bot_id from bots.bot_deployments where target = 'paper' and status = 'running'",
        )
      )[0];
    const before = (await running())!;
    const pid = Number(before.host.split(":")[1]);
    const runner = Object.entries(t.pids).find(([, p]) => p === pid)?.[0];
    expect(
      runner,
      `the host ${before.host} is one of the runners ${JSON.stringify(t.pids)}`,
    ).toMatch(/^runner-/);
    const lastSeq = async () =>
      Number(
        (
          await sqlRows<{ seq: string }>(
            "select max(seq) as seq from bots.bot_events where bot_id = $1",
            [before.bot_id],
          )
        )[0]!.seq,
      );
    const atKill = await lastSeq();
    process.kill(pid, "SIGKILL");
    await eventually(
      "another runner holds the session",
      running,
      (r) => !!r && r.host !== before.host,
      30_000,
    );
    await eventually("events go on", lastSeq, (s) => s > atKill + 5, 30_000);
    const seqs = await sqlRows<{ seq: string }>(
      "select seq from bots.bot_events where bot_id = $1 order by seq",
      [before.bot_id],
    );
    expect(seqs.map((r) => Number(r.seq))).toEqual(seqs.map((_, i) => i + 1));
    const bars = await sqlRows<{ i: number }>(
      "select (data->>'index')::int as i from bots.bot_events where bot_id = $1 and type = 'bar_received' order by seq",
      [before.bot_id],
    );
    expect(new Set(bars.map((b) => b.i)).size).toBe(bars.length);
  }, 90_000);

  it("answers 503 with Retry-After while a service is killed mid-request, and half-writes nothing", async () => {
    const answers: { slug: string; status: number; retryAfter: string | null; body: unknown }[] =
      [];
    const restarted = t.restarted("bots");
    let n = 0;
    const create = async () => {
      const name = `Kill ${n++}`;
      const r = await api("POST", "/bots", "alice", {
        name,
        kind: "research",
        fleet: "whole-or-nothing",
      });
      answers.push({
        slug: name.toLowerCase().replace(" ", "-"),
        status: r.status,
        retryAfter: r.headers.get("retry-after"),
        body: r.body,
      });
      return r.status;
    };
    // Requests in flight while the process dies, then more while it is down, until it is back.
    const inFlight = [create(), create(), create(), create()];
    process.kill(t.pids.bots!, "SIGKILL");
    await Promise.all(inFlight);
    await eventually("the gateway answers 503 while bots is down", create, (s) => s === 503);
    await restarted;
    await eventually("bots answers again", create, (s) => s === 201, 60_000);
    for (const a of answers) {
      expect([201, 503], JSON.stringify(a)).toContain(a.status);
      if (a.status === 503) expect(a.retryAfter, a.slug).toMatch(/^\d+$/);
      const read = await api("GET", `/bots/${a.slug}`, "alice");
      if (a.status === 503) expect([200, 404], a.slug).toContain(read.status);
      else expect(read.status, a.slug).toBe(200);
      if (read.status === 200)
        expect(read.body, a.slug).toMatchObject({
          slug: a.slug,
          fleet: "whole-or-nothing",
          current_version: 1,
        });
    }
  }, 90_000);

  it("with Redis frozen (SIGSTOP), answers instead of hanging; after SIGCONT the kill switch halts", async () => {
    redis.pause();
    try {
      const engaged = await api(
        "PUT",
        "/kill-switches/frozen",
        "admin",
        { scope: "fleet", target: "majors", mode: "cancel", reason: "redis frozen" },
        true,
      );
      expect(engaged.status, JSON.stringify(engaged.body)).not.toBe(500);
    } finally {
      redis.resume();
    }
    const again = await eventually(
      "the kill switch is engaged with its key written",
      () =>
        api(
          "PUT",
          "/kill-switches/frozen",
          "admin",
          { scope: "fleet", target: "majors", mode: "cancel", reason: "redis back" },
          true,
        ),
      (r) => r.body?.status?.key_state === "written",
      30_000,
    );
    expect(again.body.status.engaged).toBe(true);
    await eventually("the session stops", phaseOf, (p) => p === "Stopped", 30_000);
  }, 90_000);

  it("with NATS down, the kill switch still halts by polling; its audit record arrives once NATS is back", async () => {
    expect(
      (await api("DELETE", "/kill-switches/frozen", "admin", undefined, true)).body,
    ).toMatchObject({ released: true });
    await eventually("the session runs again", phaseOf, (p) => p === "Running", 30_000);
    await nats.down();
    try {
      const engaged = await api(
        "PUT",
        "/kill-switches/nats-down",
        "admin",
        { scope: "fleet", target: "majors", mode: "cancel", reason: "bus down" },
        true,
      );
      expect(engaged.body, JSON.stringify(engaged.body)).toMatchObject({
        status: { engaged: true, key_state: "written" },
      });
      // No broadcast can reach the runner: it halts on its next poll of the key.
      await eventually("the session stops", phaseOf, (p) => p === "Stopped", 30_000);
    } finally {
      await nats.up();
    }
    await eventually(
      "the outbox relays the engagement's audit record after NATS is back",
      () => api("GET", "/admin/audit-events?action=killswitch.engaged&limit=1000", "admin"),
      (r) => (r.body?.items ?? []).some((e: unknown) => JSON.stringify(e).includes("nats-down")),
      60_000,
    );
  }, 150_000);

  it("after a Postgres restart, services reconnect and every write answered 2xx before is still there", async () => {
    const slugs: string[] = [];
    for (let i = 0; i < 5; i++) {
      const created = await api("POST", "/bots", "alice", {
        name: `Durable ${i}`,
        kind: "research",
      });
      expect(created.status).toBe(201);
      slugs.push(created.body.slug);
    }
    await postgres.restart();
    let n = 0;
    await eventually(
      "a write succeeds again",
      async () =>
        (await api("POST", "/bots", "alice", { name: `After ${n++}`, kind: "research" })).status,
      (s) => s === 201,
      60_000,
    );
    for (const slug of slugs)
      expect((await api("GET", `/bots/${slug}`, "alice")).status, slug).toBe(200);
    const request = await eventually(
      "promotion reads its requests again",
      () => api("GET", "/promotion/requests/demo-1", "alice"),
      (r) => r.status === 200,
      30_000,
    );
    expect(request.body).toMatchObject({ request_id: "demo-1" });
  }, 120_000);

  it("with the bots service paused (SIGSTOP), a read answers 504 at its deadline, not 30 s later, and the supervisor replaces the process", async () => {
    const paused = t.pids.bots!;
    const restarted = t.restarted("bots");
    process.kill(paused, "SIGSTOP");
    try {
      // api() gives up after CALL_MS (20 s): a read held to the old 30 s deadline fails here.
      const read = await api("GET", "/bots/demo", "alice");
      expect([503, 504], JSON.stringify(read.body)).toContain(read.status);
      expect(["deadline_exceeded", "service_unavailable"]).toContain(read.body.error.code);
      const pid = await restarted;
      expect(pid).not.toBe(paused);
      expect(alive(paused)).toBe(false);
    } finally {
      if (alive(paused)) process.kill(paused, "SIGCONT");
    }
    await eventually(
      "the new bots process serves",
      () => api("GET", "/bots/demo", "alice"),
      (r) => r.status === 200,
      60_000,
    );
  }, 120_000);

  it("with identity paused (SIGSTOP), halts answer and act, a release is refused 503 membership_unverifiable, listing answers at once; the audit says the halt went unverified", async () => {
    expect(
      (await api("DELETE", "/kill-switches/nats-down", "admin", undefined, true)).body,
    ).toMatchObject({ released: true });
    await eventually("the session runs again", phaseOf, (p) => p === "Running", 30_000);
    const held = { scope: "fleet", target: "whole-or-nothing", mode: "cancel", reason: "held" };
    expect((await api("PUT", "/kill-switches/held", "admin", held, true)).status).toBe(200);
    // Signed in before the pause: the provider runs in the supervisor, not in identity.
    await Promise.all([t.token("bob", true), t.token("admin", true), t.token("alice")]);
    const identity = t.pids.identity!;
    process.kill(identity, "SIGSTOP");
    let answers;
    try {
      // bob has never called the bots service: nothing of his membership is known there.
      answers = await Promise.all([
        api("POST", "/bots/halt-all", "bob", { reason: "identity paused" }, true),
        api("PUT", "/kill-switches/while-paused", "admin", { ...held, reason: "paused" }, true),
        api("DELETE", "/kill-switches/held", "admin", undefined, true),
        api("GET", "/kill-switches", "alice"),
        // Moving a switch or giving it a TTL lifts a halt: a release in all but name.
        api(
          "PUT",
          "/kill-switches/held?rescope=true",
          "admin",
          { ...held, target: "another" },
          true,
        ),
        api("PUT", "/kill-switches/held", "admin", { ...held, ttl: "1s" }, true),
      ]);
    } finally {
      if (alive(identity)) process.kill(identity, "SIGCONT");
    }
    const [haltAll, engage, release, list, move, lapse] = answers;
    expect(haltAll.status, JSON.stringify(haltAll.body)).toBe(200);
    expect(haltAll.body.halted).toBeGreaterThanOrEqual(1);
    expect(engage.body, JSON.stringify(engage.body)).toMatchObject({ status: { engaged: true } });
    expect([release.status, release.body.error?.code]).toEqual([503, "membership_unverifiable"]);
    for (const lift of [move, lapse])
      expect([lift.status, lift.body.error?.code], JSON.stringify(lift.body)).toEqual([
        503,
        "membership_unverifiable",
      ]);
    // alice never called the killswitch service: nothing of her is cached there to list by.
    expect(
      list.status === 200 ? "listed" : list.body.error?.code,
      JSON.stringify(list.body),
    ).toMatch(/^(listed|membership_unverifiable)$/);
    await eventually(
      "the audit trail records the halt let through without identity",
      () => api("GET", "/admin/audit-events?action=auth.membership_assumed&limit=1000", "admin"),
      (r) =>
        (r.body?.items ?? []).some((e: unknown) =>
          /HaltAllBots[\s\S]*unverified_halt|unverified_halt[\s\S]*HaltAllBots/.test(
            JSON.stringify(e),
          ),
        ),
      60_000,
    );
    for (const name of ["held", "while-paused"])
      await eventually(
        `${name} is released once identity answers`,
        () => api("DELETE", `/kill-switches/${name}`, "admin", undefined, true),
        (r) => r.status === 200,
        60_000,
      );
  }, 180_000);

  it("stops every process on Ctrl-C and exits 0", async () => {
    const pids = t.everyPid();
    expect(pids.length).toBeGreaterThanOrEqual(8);
    expect(await t.interrupt()).toBe(0);
    expect(pids.filter(alive)).toEqual([]);
  }, 60_000);
});
