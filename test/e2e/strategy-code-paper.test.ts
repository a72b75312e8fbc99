import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import { approvedSession, as } from "../support/paper.js";
import { startMockKubeApi } from "../support/mock-kube-api.js";
import { COUNTER_STRATEGY, createCodeBot } from "../support/strategy-code.js";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

/** Spins in onBar from its sixth bar on. */
const SPINNER = COUNTER_STRATEGY.replace(
  "const seen = ",
  "if (Number(ctx.state.seen ?? 0) >= 5) for (;;) {}\n    const seen = ",
);
const code = (content: string) => ({ code: { files: [{ path: "strategy.ts", content }] } });

interface Event {
  seq: number;
  type: string;
  data: Record<string, unknown> & { time?: number | null; fields?: Record<string, unknown> };
}

describe("strategy code in paper sessions, conformance runs and deployments (real Postgres)", () => {
  let p: RunningPlatform;
  let kube: Awaited<ReturnType<typeof startMockKubeApi>>;
  const saved = { ...process.env };
  beforeAll(async () => {
    // The sandbox's limits come from SVC_STRATEGY_* at each start: a spinning call ends in 1.5 s.
    process.env.SVC_STRATEGY_CALL_TIMEOUT_MS = "1500";
    process.env.SVC_STRATEGY_SLOW_CALL_MS = "100";
    kube = await startMockKubeApi("sa-token");
    p = await startTestPlatform("postgres", {
      SVC_KUBE_API_URL: kube.url,
      SVC_KUBE_TOKEN: "sa-token",
      SVC_KUBE_NAMESPACE: "trading",
      SVC_KUBE_TIMEOUT_MS: "1000",
    });
    // The strategy checker's thread starts on the first check (429 until then).
    await createCodeBot(p.url, "Warm Up");
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    await kube?.stop();
    process.env = saved;
  });

  const events = async (slug: string, type: string): Promise<Event[]> =>
    (await call(p.url, "GET", `/bots/${slug}/state/events?type=${type}&limit=1000`)).body.items;
  const deployment = async (slug: string, taskId: string) =>
    (await call(p.url, "GET", `/bots/${slug}/deployments`)).body.items.find(
      (d: { task_id: string }) => d.task_id === taskId,
    );

  it("a paper session runs the code in the sandbox: its orders, its log lines at their bar's time, its state kept, and a halt", async () => {
    const taskId = await approvedSession(p, "code-paper", "code-fleet", 50, {
      strategy: code(COUNTER_STRATEGY),
    });
    const logs = await eventually(
      "the session records 20 of its strategy's log lines",
      () => events("code-paper", "strategy_log"),
      (l) => l.length >= 21,
      30_000,
    );
    // init first, with no bar and an empty state; then a line a bar, stamped with its bar's time.
    expect(logs[0]!.data).toMatchObject({ time: null, level: "info", message: "init" });
    expect(logs[0]!.data.fields).toEqual({ seen: 0 });
    const bars = await events("code-paper", "bar_received");
    for (const line of logs.slice(1, 21)) {
      const seen = Number(line.data.fields!.seen);
      expect(line.data.message).toBe("bar");
      expect(line.data.time).toBe(bars.find((b) => b.data.index === seen - 1)!.data.time);
    }
    expect((await events("code-paper", "order_placed")).length).toBeGreaterThan(0);
    // The strategy's state is kept with the last bar's events, in their transaction.
    const kept = await sql<{
      bar: number;
      state: string;
    }>`select bar, state from bots.session_strategy_state where task_id = ${taskId}`.execute(
      p.platform.db.db,
    );
    expect(kept.rows).toHaveLength(1);
    expect(JSON.parse(kept.rows[0]!.state).host.sandbox.state.seen).toBeGreaterThan(0);

    const halted = await call(p.url, "POST", "/bots/code-paper/halt", { reason: "drill" });
    expect(halted.body.task_ids).toEqual([taskId]);
    expect((await deployment("code-paper", taskId)).status).toBe("halted");
    const phases = await events("code-paper", "phase_changed");
    expect(phases.at(-1)!.data).toMatchObject({ phase: "Stopped" });
    // Replay's determinism check re-runs the code in a sandbox of its own over the recorded bars.
    const replay = await call(p.url, "POST", "/bots/code-paper/replay", { rerun_strategy: true });
    expect(replay.status).toBe(200);
    expect(replay.body.deterministic).toBe(true);
  }, 90_000);

  it("a kill switch parks a code session and its release resumes it from the state kept: init again, the count goes on", async () => {
    const taskId = await approvedSession(p, "code-park", "park-fleet", 50, {
      strategy: code(COUNTER_STRATEGY),
    });
    await eventually(
      "the session records 10 bars",
      () => events("code-park", "bar_received"),
      (b) => b.length >= 10,
      30_000,
    );
    await call(p.url, "PUT", "/kill-switches/park-fleet", {
      scope: "fleet",
      target: "park-fleet",
      mode: "cancel",
      reason: "code drill",
    });
    await eventually(
      "the session is parked",
      () => deployment("code-park", taskId),
      (d) => d?.status === "halted" && d.parked === true,
      30_000,
    );
    const parkedAt = (await events("code-park", "bar_received")).length;
    await call(p.url, "DELETE", "/kill-switches/park-fleet");
    const bars = await eventually(
      "the session runs again and records 10 more bars",
      () => events("code-park", "bar_received"),
      (b) => b.length >= parkedAt + 10,
      30_000,
    );
    expect(bars.map((b) => b.data.index)).toEqual(bars.map((_, i) => i));
    const logs = await events("code-park", "strategy_log");
    expect(logs.filter((l) => l.data.message === "init").map((l) => l.data.fields!.seen)).toEqual([
      0,
      parkedAt,
    ]);
    const counted = logs.filter((l) => l.data.message === "bar").map((l) => l.data.fields!.seen);
    expect(counted.slice(0, bars.length)).toEqual(bars.map((_, i) => i + 1));
    await call(p.url, "POST", "/bots/code-park/halt", { reason: "end" });
  }, 90_000);

  it("a strategy that spins ends its session failed with strategy_timeout, keeping the bars before", async () => {
    const taskId = await approvedSession(p, "code-spin", "code-fleet", 50, {
      strategy: code(SPINNER),
    });
    const done = await eventually(
      "the spinning session ends",
      () => deployment("code-spin", taskId),
      (d) => d?.status !== "running",
      30_000,
    );
    expect(done.status).toBe("failed");
    expect(done.result_summary.error).toMatch(/^strategy_timeout: .*1500 ms/);
    const bars = await events("code-spin", "bar_received");
    expect(bars.map((b) => b.data.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect((await events("code-spin", "phase_changed")).at(-1)!.data).toMatchObject({
      phase: "Stopped",
      reason: expect.stringMatching(/^strategy_timeout/),
    });
  }, 90_000);

  it("conformance and stress run for a code version: stress drives the code at the multiple", async () => {
    const bot = await createCodeBot(p.url, "Code Conformance", as("alice"));
    const started = await call(
      p.url,
      "POST",
      "/bots/code-conformance/conformance",
      {},
      as("alice"),
    );
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body.version_hash).toBe(bot.spec_hash);
    const done = await eventually(
      "the conformance run completes",
      () => call(p.url, "GET", started.body.results.href),
      (r) => r.status === 200 && !["pending", "running"].includes(r.body.status),
      30_000,
    );
    expect(done.body.status, JSON.stringify(done.body)).toBe("completed");
    expect(done.body.cases.length).toBeGreaterThan(5);
    const stress = await call(p.url, "POST", "/bots/code-conformance/stress", {}, as("alice"));
    expect(stress.status, JSON.stringify(stress.body)).toBe(202);
    const stressed = await eventually(
      "the stress run completes",
      () => call(p.url, "GET", stress.body.results.href),
      (r) => r.status === 200 && !["pending", "running"].includes(r.body.status),
      60_000,
    );
    expect(stressed.body.status, JSON.stringify(stressed.body)).toBe("completed");
    expect(stressed.body.stress).toMatchObject({
      replay: "strategy",
      peak_multiple: 2,
      orders_lost: "0",
      controls_held: true,
    });
    expect(Number(stressed.body.stress.orders_sent)).toBeGreaterThan(0);
  }, 90_000);

  it("deploys a code version: the Bot resource names its strategy digest, as the token does", async () => {
    const bot = await createCodeBot(p.url, "Code Deploy", as("alice"));
    const digest: string = bot.spec.strategy.code.digest;
    await eventually(
      "the promotion service learns the version and its code",
      async () =>
        (
          await sql<{
            digest: string | null;
          }>`select strategy_digest as digest from promotion.known_bot_versions where bot_id = ${bot.id}`.execute(
            p.platform.db.db,
          )
        ).rows[0]?.digest,
      (d) => d === digest,
    );
    await call(
      p.url,
      "POST",
      "/promotion/requests",
      {
        request_id: "code-deploy-1",
        kind: "strategy",
        artifact: { bot_ref: "code-deploy", version: 1, version_hash: bot.spec_hash },
        validation: { verdict: "PASS" },
        risk: { decision: "APPROVE" },
      },
      as("alice"),
    );
    const approved = await call(
      p.url,
      "POST",
      "/promotion/requests/code-deploy-1/approve",
      {},
      as("bob"),
    );
    const token: string = approved.body.approved_promotion;
    const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8"));
    expect(claims.strategy_digest).toBe(digest);
    const res = await call(p.url, "POST", "/bots/code-deploy/deploy", {
      target: "k8s",
      approved_promotion: token,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(kube.objects.get("trading/bots/code-deploy")).toMatchObject({
      kind: "Bot",
      spec: {
        slug: "code-deploy",
        version: 1,
        specHash: bot.spec_hash,
        strategyDigest: digest,
        approvedPromotion: token,
      },
    });
  }, 90_000);
});
