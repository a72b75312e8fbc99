import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const spec = (over: Record<string, unknown> = {}) => ({
  name: "MA on sample",
  kind: "trading",
  strategy: { family: "ma_crossover", parameters: { fast: 10, slow: 40 } },
  engine: { initial_cash: 100000, fee_bps: 5, slippage_bps: 2, position_size: 1 },
  ...over,
});

describe("backtests through the gateway", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("pglite");
  });
  afterAll(async () => {
    await p?.close();
  });

  const finished = (slug: string, taskId: string) =>
    eventually(
      `backtest ${taskId} finishes`,
      async () =>
        (await call(p.url, "GET", `/bots/${slug}/deployments`)).body.items.find(
          (x: { task_id: string }) => x.task_id === taskId,
        ),
      (d) => d?.status === "success" || d?.status === "failed",
    );

  it("dispatches a run of the current version on the bundled CSV and records a trial", async () => {
    await call(p.url, "POST", "/bots", spec({ slug: "ma-sample" }));
    const res = await call(p.url, "POST", "/bots/ma-sample/backtest", {
      data_source: "csv:sample-btc-usd-1d",
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ target: "backtest", status: "pending", version: 1 });
    expect(res.body.task_id).toMatch(/^bt-/);
    const done = await finished("ma-sample", res.body.task_id);
    expect(done.status).toBe("success");
    const s = done.result_summary;
    expect(s).toMatchObject({
      data_source: "csv:sample-btc-usd-1d",
      bars: 1000,
      daily_returns: 1000,
    });
    for (const key of [
      "total_return",
      "pnl",
      "sharpe",
      "sortino",
      "max_drawdown",
      "trades",
      "win_rate",
      "exposure",
      "fees",
    ])
      // NaN and the infinities are numbers too: a summary must hold finite figures.
      expect(s[key], key).toSatisfy(Number.isFinite);
    expect(s.trades).toBeGreaterThan(0);
    expect(s.pnl).toBeCloseTo(s.final_equity - 100000, 4);
    const trials = await sql<{
      n: number;
      days: number;
    }>`select count(*)::int as n, max(observations)::int as days from bots.trial_ledger`.execute(
      p.platform.db.db,
    );
    expect(trials.rows[0]).toEqual({ n: 1, days: 1000 });
  });

  it("runs a named version over a date range and synthetic data", async () => {
    await call(p.url, "POST", "/bots", spec({ slug: "ranged" }));
    await call(p.url, "PUT", "/bots/ranged", {
      spec: spec({
        slug: "ranged",
        strategy: { family: "breakout", parameters: { lookback: 20, exit_lookback: 5 } },
      }),
    });
    const v1 = await call(p.url, "POST", "/bots/ranged/backtest", {
      version: 1,
      start: "2022-06-01T00:00:00Z",
      end: "2023-06-01T00:00:00Z",
    });
    expect(v1.body.version).toBe(1);
    expect((await finished("ranged", v1.body.task_id)).result_summary.bars).toBe(365);
    const synth = await call(p.url, "POST", "/bots/ranged/backtest", {
      data_source: "synthetic:42",
    });
    expect(synth.body.version).toBe(2);
    expect((await finished("ranged", synth.body.task_id)).result_summary.bars).toBe(730);
  });

  it("refuses what a person got wrong, with a 4xx naming it", async () => {
    const bad = await call(
      p.url,
      "POST",
      "/bots",
      spec({
        slug: "bad",
        strategy: { family: "ma_crossover", parameters: { fast: 50, slow: 20 } },
      }),
    );
    expect([bad.status, bad.body.error.details.field]).toEqual([400, "strategy.parameters.slow"]);
    const unknown = await call(
      p.url,
      "POST",
      "/bots",
      spec({ slug: "bad", strategy: { family: "astrology" } }),
    );
    expect(unknown.body.error).toMatchObject({
      code: "unknown_strategy",
      details: { field: "strategy.family" },
    });
    const param = await call(
      p.url,
      "POST",
      "/bots",
      spec({ slug: "bad", strategy: { family: "breakout", parameters: { window: 3 } } }),
    );
    expect(param.body.error.message).toMatch(/breakout has no parameter "window"/);

    await call(p.url, "POST", "/bots", spec({ slug: "ok" }));
    const range = await call(p.url, "POST", "/bots/ok/backtest", {
      start: "2023-01-01T00:00:00Z",
      end: "2022-01-01T00:00:00Z",
    });
    expect([range.status, range.body.error.code]).toEqual([400, "invalid_range"]);
    const empty = await call(p.url, "POST", "/bots/ok/backtest", {
      start: "2030-01-01T00:00:00Z",
      end: "2031-01-01T00:00:00Z",
    });
    expect([empty.status, empty.body.error.code]).toEqual([400, "empty_data"]);
    const dataset = await call(p.url, "POST", "/bots/ok/backtest", { data_source: "csv:nope" });
    expect([dataset.status, dataset.body.error.details.field]).toEqual([400, "data_source"]);
    const version = await call(p.url, "POST", "/bots/ok/backtest", { version: 7 });
    expect([version.status, version.body.error.code]).toEqual([404, "version_not_found"]);
    await call(p.url, "PUT", "/bots/ok", { status: "archived" });
    const archived = await call(p.url, "POST", "/bots/ok/backtest", {});
    expect([archived.status, archived.body.error.code]).toEqual([412, "bot_archived"]);
    expect((await call(p.url, "GET", "/bots/ok/deployments")).body.items).toEqual([]);
  });
});
