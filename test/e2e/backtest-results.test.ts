import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const spec = (slug: string, over: Record<string, unknown> = {}) => ({
  name: slug,
  slug,
  kind: "trading",
  universe: { symbols: ["BTC-USD"], timeframe: "1d" },
  strategy: { family: "ma_crossover", parameters: { fast: 5, slow: 20 } },
  engine: { initial_cash: 100000, fee_bps: 5, slippage_bps: 2, position_size: 1 },
  ...over,
});

describe("a finished backtest's results, trades and progress", () => {
  let p: RunningPlatform;
  let id: string;
  beforeAll(async () => {
    p = await startTestPlatform("postgres");
    await call(p.url, "POST", "/bots", spec("res"));
    const res = await call(p.url, "POST", "/bots/res/backtest", {
      data_source: "csv:sample-btc-usd-1d",
    });
    expect(res.status).toBe(202);
    // The total is counted when the backtest is accepted.
    expect(res.body.progress).toMatchObject({ bars_done: "0", bars_total: "1000" });
    id = res.body.id;
    await eventually(
      "the backtest succeeds",
      async () => (await call(p.url, "GET", "/bots/res/deployments")).body.items[0],
      (d) => d?.status === "success",
    );
  }, 60_000);
  afterAll(async () => {
    await p?.close();
  });

  it("ends with every bar done, an elapsed time and nothing left", async () => {
    const [d] = (await call(p.url, "GET", "/bots/res/deployments")).body.items;
    expect(d.progress).toMatchObject({ bars_done: "1000", bars_total: "1000", remaining_s: 0 });
    expect(d.progress.elapsed_s).toBeGreaterThanOrEqual(0);
  });

  it("serves the figures, the equity curve with its drawdown, and the daily returns", async () => {
    const res = await call(p.url, "GET", `/bots/res/deployments/${id}/results`);
    expect(res.status).toBe(200);
    const r = res.body;
    expect(r).toMatchObject({
      deployment_id: id,
      version: 1,
      data_source: "csv:sample-btc-usd-1d",
      downsampled: false,
      bars_per_point: "1",
      trades_truncated: false,
    });
    expect(r.metrics.bars).toBe(1000);
    expect(r.equity).toHaveLength(1000);
    expect(r.equity[0].time).toBe("2022-01-01T00:00:00Z");
    expect(r.equity.at(-1).equity).toBeCloseTo(r.metrics.final_equity, 4);
    const worst = Math.max(...r.equity.map((x: { drawdown: number }) => x.drawdown));
    expect(worst).toBeCloseTo(r.metrics.max_drawdown, 6);
    expect(r.daily_returns).toHaveLength(1000);
    expect(r.daily_returns[0]).toEqual({ date: "2022-01-01", value: 0 });
    expect(r.trade_count).toBeGreaterThan(2);
  });

  it("pages the trades by an opaque token; they add up to the run's PnL", async () => {
    const r = (await call(p.url, "GET", `/bots/res/deployments/${id}/results`)).body;
    const all: Array<Record<string, unknown>> = [];
    let token = "";
    let pages = 0;
    do {
      const q = `page_size=2${token ? `&page_token=${encodeURIComponent(token)}` : ""}`;
      const res = await call(p.url, "GET", `/bots/res/deployments/${id}/trades?${q}`);
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(2);
      expect(res.body.total).toBe(r.trade_count);
      all.push(...res.body.items);
      token = res.body.next_page_token;
      pages++;
    } while (token);
    expect(pages).toBe(Math.ceil(r.trade_count / 2));
    expect(all.map((t) => t.number)).toEqual(all.map((_, i) => i + 1));
    expect(all[0]).toMatchObject({ symbol: "BTC-USD", closed: true });
    expect(["long", "short"]).toContain(all[0]!.side);
    for (const k of ["entry_price", "exit_price", "size", "pnl", "fees"])
      expect(all[0]![k], k).toSatisfy(Number.isFinite);
    expect(Date.parse(all[0]!.exit_time as string)).toBeGreaterThan(
      Date.parse(all[0]!.entry_time as string),
    );
    const sum = all.reduce((a, t) => a + (t.pnl as number), 0);
    expect(sum).toBeCloseTo(r.metrics.pnl, 2);
    const fees = all.reduce((a, t) => a + (t.fees as number), 0);
    expect(fees).toBeCloseTo(r.metrics.fees, 4);
  });

  it("refuses a token of another backtest, a made-up token, and sizes out of bounds", async () => {
    await call(p.url, "POST", "/bots", spec("other"));
    const other = (await call(p.url, "POST", "/bots/other/backtest", {})).body.id;
    await eventually(
      "the other backtest succeeds",
      async () => (await call(p.url, "GET", "/bots/other/deployments")).body.items[0],
      (d) => d?.status === "success",
    );
    const first = await call(p.url, "GET", `/bots/other/deployments/${other}/trades?page_size=1`);
    const foreign = await call(
      p.url,
      "GET",
      `/bots/res/deployments/${id}/trades?page_token=${first.body.next_page_token}`,
    );
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.message).toMatch(/another backtest/);
    expect(foreign.body.error.details.field).toBe("page_token");
    const junk = await call(p.url, "GET", `/bots/res/deployments/${id}/trades?page_token=xyz`);
    expect(junk.status).toBe(400);
    expect(junk.body.error.details.field).toBe("page_token");
    for (const size of ["100000", "-1"]) {
      const res = await call(p.url, "GET", `/bots/res/deployments/${id}/trades?page_size=${size}`);
      expect(res.status, size).toBe(400);
      expect(res.body.error.details.field).toBe("page_size");
    }
  });

  it("says why a deployment has no results", async () => {
    const unknown = await call(
      p.url,
      "GET",
      "/bots/res/deployments/00000000-0000-4000-8000-000000000000/results",
    );
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("deployment_not_found");
    const nul = await call(p.url, "GET", "/bots/res/deployments/a%00b/results");
    expect(nul.status).toBeGreaterThanOrEqual(400);
    expect(nul.status).toBeLessThan(500);
    // Another bot's deployment is not this bot's.
    const [mine] = (await call(p.url, "GET", "/bots/res/deployments")).body.items;
    const cross = await call(p.url, "GET", `/bots/other/deployments/${mine.id}/trades`);
    expect(cross.status).toBe(404);
    // A backtest that is still running, or that failed, has none and says so (the rows are
    // set by hand: a 1,000-bar run ends before a request could catch it running).
    const second = (await call(p.url, "POST", "/bots/other/backtest", {})).body.id;
    await eventually(
      "the second backtest ends",
      async () =>
        (await call(p.url, "GET", "/bots/other/deployments")).body.items.find(
          (d: { id: string }) => d.id === second,
        ),
      (d) => d?.status === "success",
    );
    for (const [status, why] of [
      ["running", /is running; its progress/],
      ["failed", /ended failed \(boom\)/],
    ] as const) {
      await sql`update bots.bot_deployments set status = ${status}, error = 'boom' where id = ${second}`.execute(
        p.platform.db.db,
      );
      const res = await call(p.url, "GET", `/bots/other/deployments/${second}/results`);
      expect(res.status, status).toBe(409);
      expect(res.body.error.code).toBe("results_unavailable");
      expect(res.body.error.message).toMatch(why);
      expect(res.body.error.details).toMatchObject({ target: "backtest", status });
    }
  });

  it("shows a running backtest's elapsed time and the time left at its pace", async () => {
    // A 1,000-bar run ends within a second, before its first progress write: the row is set as
    // a long run's would be a quarter of the way through, 10 s after it started.
    await sql`update bots.bot_deployments set status = 'running', bars_done = 250, bars_total = 1000,
      started_at = now() - interval '10 seconds' where id = ${id}`.execute(p.platform.db.db);
    const d = (await call(p.url, "GET", "/bots/res/deployments")).body.items.find(
      (x: { id: string }) => x.id === id,
    );
    expect(d.progress).toMatchObject({ bars_done: "250", bars_total: "1000" });
    expect(d.progress.elapsed_s).toBeGreaterThanOrEqual(10);
    expect(d.progress.elapsed_s).toBeLessThan(60);
    expect(d.progress.remaining_s).toBeCloseTo(3 * d.progress.elapsed_s, 6);
  });
});
