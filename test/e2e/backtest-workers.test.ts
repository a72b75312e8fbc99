import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

// A backtest's computation runs on a worker thread (backtest-pool.ts): the process's event loop
// only does the run's I/O, so the health check and the API answer while runs compute. (That a
// run advances while the calling thread never yields, and that a worker that dies fails only its
// own run: services/bots/src/runtime/backtest-pool.test.ts.)

const MINUTE = 60_000;
const spec = {
  name: "long runs",
  slug: "long-runs",
  kind: "trading",
  universe: { symbols: ["BTC-USD"], timeframe: "1m" },
  strategy: { family: "ma_crossover", parameters: { fast: 5, slow: 20, allow_short: true } },
  engine: { initial_cash: 100000, fee_bps: 5, slippage_bps: 2, position_size: 0.6 },
  // Risk limits make a run event-driven, bar by bar: the slowest kind.
  risk: { max_order_units: 1_000_000 },
};
/** 100,000 synthetic minute bars, the most a synthetic range holds. */
const longest = (seed: number) => ({
  data_source: `synthetic:${seed}`,
  start: "2022-01-01T00:00:00Z",
  end: new Date(Date.UTC(2022, 0, 1) + 100_000 * MINUTE).toISOString(),
});

describe("backtests compute off the event loop", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("pglite");
  });
  afterAll(async () => {
    await p?.close();
  });

  it("answers the health check and reads while runs are running, and they still succeed", async () => {
    expect((await call(p.url, "POST", "/bots", spec)).status).toBe(201);
    const ids: string[] = [];
    for (const seed of [1, 2, 3, 4]) {
      const res = await call(p.url, "POST", "/bots/long-runs/backtest", longest(seed));
      expect(res.status).toBe(202);
      ids.push(res.body.task_id);
    }
    const statuses = async () =>
      new Map<string, string>(
        (await call(p.url, "GET", "/bots/long-runs/deployments")).body.items.map(
          (d: { task_id: string; status: string }) => [d.task_id, d.status],
        ),
      );
    await eventually("a run is running", statuses, (s) => [...s.values()].includes("running"));
    const health = await call(p.url, "GET", "/healthz");
    const bot = await call(p.url, "GET", "/bots/long-runs");
    const after = await statuses();
    expect(health.status).toBe(200);
    expect(bot.status).toBe(200);
    // Answered while the work was still going on, not after it.
    expect([...after.values()].some((s) => s === "running" || s === "pending")).toBe(true);
    const done = await eventually(
      "every run ends",
      statuses,
      (s) => [...s.values()].every((x) => x !== "running" && x !== "pending"),
      120_000,
    );
    expect([...done.values()]).toEqual(["success", "success", "success", "success"]);
  }, 180_000);
});
