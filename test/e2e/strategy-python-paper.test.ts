import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { approvedSession, as } from "../support/paper.js";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

/** Counts its bars in ctx.state and logs each; long for five bars, flat for five. */
const COUNTER_PY = `def init(ctx):
    ctx.log(f"init {ctx.state.get('seen', 0)}")


def on_bar(ctx):
    seen = ctx.state.get("seen", 0) + 1
    ctx.state["seen"] = seen
    ctx.log(f"bar {seen}")
    for symbol in ctx.symbols:
        ctx.target(symbol, weight=1 if (seen // 5) % 2 == 0 else 0)
`;
const MA_FAMILY_PY = fs.readFileSync(
  fileURLToPath(new URL("../../services/bots/src/sandbox/fixtures/ma_family.py", import.meta.url)),
  "utf8",
);
const python = (content: string) => ({
  code: { language: "python", files: [{ path: "strategy.py", content }] },
});

interface Event {
  seq: number;
  type: string;
  data: Record<string, unknown> & { time?: number | null };
}

// Paper sessions, stress runs and sweeps of a Python version run its gRPC server in the sandbox,
// as its backtests do (strategy-python-backtest.test.ts), never its source as a JS bundle.
describe("a Python strategy in paper sessions, compliance runs and sweeps (real Postgres)", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("postgres");
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
  }, 60_000);

  const events = async (slug: string, type: string): Promise<Event[]> =>
    (await call(p.url, "GET", `/bots/${slug}/state/events?type=${type}&limit=1000`)).body.items;
  const deployment = async (slug: string, taskId: string) =>
    (await call(p.url, "GET", `/bots/${slug}/deployments`)).body.items.find(
      (d: { task_id: string }) => d.task_id === taskId,
    );

  it("a paper session runs it: its log lines, its state kept with each bar, parked and resumed from that state, replayed to the same events", async () => {
    const taskId = await approvedSession(p, "py-paper", "py-fleet", 50, {
      strategy: python(COUNTER_PY),
    });
    await eventually(
      "the session records 10 bars",
      () => events("py-paper", "bar_received"),
      (b) => b.length >= 10,
      30_000,
    );
    const running = await deployment("py-paper", taskId);
    expect(running.status, JSON.stringify(running)).toBe("running");
    const kept = await sql<{
      bar: number;
      state: string;
    }>`select bar, state from bots.session_strategy_state where task_id = ${taskId}`.execute(
      p.platform.db.db,
    );
    expect(kept.rows).toHaveLength(1);
    expect(JSON.parse(kept.rows[0]!.state).host.sandbox.state.seen).toBeGreaterThan(0);
    expect((await events("py-paper", "order_placed")).length).toBeGreaterThan(0);

    await call(p.url, "PUT", "/kill-switches/py-fleet", {
      scope: "fleet",
      target: "py-fleet",
      mode: "cancel",
      reason: "python drill",
    });
    await eventually(
      "the session is parked",
      () => deployment("py-paper", taskId),
      (d) => d?.status === "halted" && d.parked === true,
      30_000,
    );
    const parkedAt = (await events("py-paper", "bar_received")).length;
    await call(p.url, "DELETE", "/kill-switches/py-fleet");
    const bars = await eventually(
      "the session runs again and records 10 more bars",
      () => events("py-paper", "bar_received"),
      (b) => b.length >= parkedAt + 10,
      30_000,
    );
    expect(bars.map((b) => b.data.index)).toEqual(bars.map((_, i) => i));
    const logs = (await events("py-paper", "strategy_log")).map((l) => String(l.data.message));
    // init ran again on resume, with the count the state kept; the count goes on from there.
    expect(logs.filter((m) => m.startsWith("init"))).toEqual(["init 0", `init ${parkedAt}`]);
    const counted = logs.filter((m) => m.startsWith("bar ")).map((m) => Number(m.slice(4)));
    expect(counted.slice(0, bars.length)).toEqual(bars.map((_, i) => i + 1));

    const halted = await call(p.url, "POST", "/bots/py-paper/halt", { reason: "end" });
    expect(halted.body.task_ids).toEqual([taskId]);
  }, 120_000);

  it("replay's determinism check re-runs the Python strategy over the recorded bars", async () => {
    const taskId = await approvedSession(p, "py-replay", "py-fleet-2", 50, {
      strategy: python(COUNTER_PY),
    });
    await eventually(
      "the session records 8 bars",
      () => events("py-replay", "bar_received"),
      (b) => b.length >= 8,
      30_000,
    );
    await call(p.url, "POST", "/bots/py-replay/halt", { reason: "drill" });
    expect((await deployment("py-replay", taskId)).status).toBe("halted");
    const replay = await call(p.url, "POST", "/bots/py-replay/replay", { rerun_strategy: true });
    expect(replay.status, JSON.stringify(replay.body)).toBe(200);
    expect(replay.body.deterministic).toBe(true);
  }, 90_000);

  it("conformance and stress run for a Python version: stress drives the Python code at the multiple", async () => {
    const created = await call(
      p.url,
      "POST",
      "/bots",
      { name: "Py Stress", kind: "trading", strategy: python(COUNTER_PY) },
      as("alice"),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    for (const kind of ["conformance", "stress"]) {
      const started = await call(p.url, "POST", `/bots/py-stress/${kind}`, {}, as("alice"));
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      const done = await eventually(
        `the ${kind} run completes`,
        () => call(p.url, "GET", started.body.results.href),
        (r) => r.status === 200 && !["pending", "running"].includes(r.body.status),
        60_000,
      );
      expect(done.body.status, JSON.stringify(done.body)).toBe("completed");
      if (kind === "stress") {
        expect(done.body.stress).toMatchObject({
          replay: "strategy",
          orders_lost: "0",
          controls_held: true,
        });
        expect(Number(done.body.stress.orders_sent)).toBeGreaterThan(0);
      }
    }
  }, 150_000);

  it("a sweep reads the declarations of the Python module: ranges held, unknown names refused, each combination run", async () => {
    const created = await call(p.url, "POST", "/bots", {
      name: "Py Sweep",
      kind: "trading",
      strategy: { ...python(MA_FAMILY_PY), parameters: { fast: 5, slow: 20 } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const below = await call(p.url, "POST", "/bots/py-sweep/sweeps", {
      request_key: "below",
      parameters: [{ name: "fast", values: [0, 3] }],
    });
    expect(below.status, JSON.stringify(below.body)).toBe(400);
    expect(below.body.error.message).toBe("fast: 0 is below its declared minimum 1");
    const unknown = await call(p.url, "POST", "/bots/py-sweep/sweeps", {
      request_key: "unknown",
      parameters: [{ name: "fast_len", values: [5] }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/it declares (?=.*fast)(?=.*slow)(?=.*allow_short)/);
    const res = await call(p.url, "POST", "/bots/py-sweep/sweeps", {
      request_key: "grid",
      parameters: [
        { name: "fast", values: [3, 5] },
        { name: "allow_short", values: [false, true] },
      ],
      data_source: "csv:sample-btc-usd-1d",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.combinations).toBe(4);
    const done = await eventually(
      "the sweep ends",
      async () => (await call(p.url, "GET", `/bots/py-sweep/sweeps/${res.body.id}`)).body,
      (s) => s.status === "done",
      120_000,
    );
    expect(done.runs_succeeded).toBe(4);
    expect(done.results.map((r: { parameters: object }) => r.parameters)).toEqual(
      expect.arrayContaining([
        { fast: 3, slow: 20, allow_short: false },
        { fast: 5, slow: 20, allow_short: true },
      ]),
    );
  }, 180_000);
});
