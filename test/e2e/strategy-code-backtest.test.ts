import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { MA_CROSSOVER_EXAMPLE } from "@svc/strategy-sdk/check";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { COUNTER_STRATEGY, createCodeBot } from "../support/strategy-code.js";
import { eventually } from "../support/until.js";

/** The SDK example with an onBar that throws once it has enough bars. */
const THROWS = MA_CROSSOVER_EXAMPLE.replace(
  "if (bars.length < slow) continue;",
  'if (bars.length < slow) continue;\n      throw new RangeError("boom at bar " + bars.length);',
);

/** Explicit orders: a limit buy under the close (cancelled unfilled after 5 bars), a stop sell, a market buy, a units target. */
const ORDERS_STRATEGY = `import { defineStrategy } from "@svc/strategy-sdk";

let n = 0;
let limit: string | undefined;

export default defineStrategy({
  params: {},
  onBar(ctx) {
    const symbol = ctx.symbols[0]!;
    const close = ctx.bars(symbol).latest.close;
    n++;
    if (n % 10 === 1) limit = ctx.order({ symbol, side: "buy", units: 0.5, type: "limit", limitPrice: close * 0.99 });
    if (n % 10 === 6 && limit) ctx.cancel(limit);
    if (n % 10 === 7) ctx.order({ symbol, side: "sell", units: 0.2, type: "stop", stopPrice: close * 0.98 });
    if (n % 10 === 8) ctx.order({ symbol, side: "buy", units: 0.1, type: "market" });
    if (n % 20 === 9) ctx.target(symbol, { units: n % 40 === 9 ? 1 : 0 });
  },
});
`;

/** The SDK example with an onBar that never returns. */
const ENDLESS = MA_CROSSOVER_EXAMPLE.replace("onBar(ctx) {", "onBar(ctx) {\n    for (;;) {}");

describe("backtests of strategy code, sandboxed (real Postgres)", () => {
  let p: RunningPlatform;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let bot: any;
  const saved = { ...process.env };
  beforeAll(async () => {
    // The sandbox's limits come from SVC_STRATEGY_* at each run: a spinning call ends in 1.5 s.
    process.env.SVC_STRATEGY_CALL_TIMEOUT_MS = "1500";
    process.env.SVC_STRATEGY_SLOW_CALL_MS = "100";
    p = await startTestPlatform("postgres", { SVC_BACKTEST_WORKERS: "2" });
    // The platform's first check starts its checker's thread (seconds on a loaded machine): set-up.
    bot = await createCodeBot(p.url, "Code Runs");
  }, PLATFORM_START_TIMEOUT_MS + 60_000);
  afterAll(async () => {
    await p?.close();
    process.env = saved;
  });

  const finished = (slug: string, taskId: string) =>
    eventually(
      `backtest ${taskId} of ${slug} ends`,
      async () =>
        (await call(p.url, "GET", `/bots/${slug}/deployments`)).body.items.find(
          (x: { task_id: string }) => x.task_id === taskId,
        ),
      (d) => d?.status === "success" || d?.status === "failed",
      60_000,
    );

  it("backtests a version with code in the sandbox: it ends success with trades and a trial", async () => {
    const res = await call(p.url, "POST", "/bots/code-runs/backtest", {
      data_source: "csv:sample-btc-usd-1d",
    });
    expect(res.status).toBe(202);
    const done = await finished("code-runs", res.body.task_id);
    expect(done.result_summary.error).toBeUndefined();
    expect(done.status).toBe("success");
    expect(done.result_summary).toMatchObject({ data_source: "csv:sample-btc-usd-1d", bars: 1000 });
    expect(done.result_summary.trades).toBeGreaterThan(0);
    // The trial names the code it ran, by its source digest.
    const trial = await sql<{
      strategy_family: string;
    }>`select strategy_family from bots.trial_ledger where trial_id = ${done.id}`.execute(
      p.platform.db.db,
    );
    expect(trial.rows).toEqual([{ strategy_family: `code:${bot.spec.strategy.code.digest}` }]);
    // The platform's first run starts its workers: seconds on a loaded machine.
  }, 60_000);

  it("keeps the strategy's ctx.log lines with the results, each at its bar's time, and counts those past the limit", async () => {
    const created = await eventually(
      "the checker takes the counter",
      () =>
        call(p.url, "POST", "/bots", {
          name: "Logs Lines",
          kind: "trading",
          strategy: { code: { files: [{ path: "strategy.ts", content: COUNTER_STRATEGY }] } },
        }),
      (r) => r.status !== 429,
      60_000,
    );
    expect(created.status).toBe(201);
    const res = await call(p.url, "POST", "/bots/logs-lines/backtest", {
      data_source: "csv:sample-btc-usd-1d",
    });
    const done = await finished("logs-lines", res.body.task_id);
    expect(done.status).toBe("success");
    const results = await call(p.url, "GET", `/bots/logs-lines/deployments/${done.id}/results`);
    expect(results.status).toBe(200);
    const logs = results.body.strategy_logs;
    // init's line and one a bar: 1,001 lines, the run's limit (SVC_STRATEGY_LOG_LINES) is 1,000.
    expect(logs).toHaveLength(1000);
    expect(results.body.strategy_logs_dropped).toBe("1");
    expect(logs[0]).toEqual({ time: null, level: "info", message: "init", fields: { seen: 0 } });
    expect(logs[1]).toEqual({
      time: results.body.equity[0].time,
      level: "info",
      message: "bar",
      fields: { seen: 1 },
    });
    expect(logs[500].time).toBe(results.body.equity[499].time);
    // The lines are the results', not the summary's.
    expect(done.result_summary.strategy_logs).toBeUndefined();
  }, 60_000);

  it("ends a strategy that spins in onBar failed with strategy_timeout, while a run beside it succeeds", async () => {
    const hostile = await eventually(
      "the checker takes the endless strategy",
      () =>
        call(p.url, "POST", "/bots", {
          name: "Spinner",
          kind: "trading",
          strategy: { code: { files: [{ path: "strategy.ts", content: ENDLESS }] } },
        }),
      (r) => r.status !== 429,
      60_000,
    );
    expect(hostile.status).toBe(201);
    await call(p.url, "POST", "/bots", {
      name: "Beside",
      kind: "trading",
      strategy: { family: "ma_crossover", parameters: { fast: 10, slow: 40 } },
    });
    const spin = await call(p.url, "POST", "/bots/spinner/backtest", {
      data_source: "csv:sample-btc-usd-1d",
    });
    expect(spin.status).toBe(202);
    const beside = await call(p.url, "POST", "/bots/beside/backtest", {
      data_source: "csv:sample-btc-usd-1d",
    });
    expect(beside.status).toBe(202);
    const failed = await finished("spinner", spin.body.task_id);
    expect(failed.status).toBe("failed");
    expect(failed.result_summary.error).toMatch(/^strategy_timeout: .*1500 ms/);
    expect((await finished("beside", beside.body.task_id)).status).toBe("success");
  });

  it("backtests code that trades with explicit orders (limit, stop, market, cancel) and a units target: it ends success with trades", async () => {
    const created = await eventually(
      "the checker takes the strategy",
      () =>
        call(p.url, "POST", "/bots", {
          name: "Order Maker",
          kind: "trading",
          strategy: { code: { files: [{ path: "strategy.ts", content: ORDERS_STRATEGY }] } },
        }),
      (r) => r.status !== 429,
      60_000,
    );
    expect(created.status).toBe(201);
    const res = await call(p.url, "POST", "/bots/order-maker/backtest", {
      data_source: "csv:sample-btc-usd-1d",
    });
    expect(res.status).toBe(202);
    const done = await finished("order-maker", res.body.task_id);
    expect(done.result_summary.error).toBeUndefined();
    expect(done.status).toBe("success");
    expect(done.result_summary.trades).toBeGreaterThan(5);
    expect(done.result_summary.exposure).toBeGreaterThan(0);
  });

  it("gives the spec's strategy.parameters to the code: weight 0 holds nothing, so it trades nothing", async () => {
    const created = await eventually(
      "the checker takes the example",
      () =>
        call(p.url, "POST", "/bots", {
          name: "Flat Params",
          kind: "trading",
          strategy: {
            code: { files: [{ path: "strategy.ts", content: MA_CROSSOVER_EXAMPLE }] },
            parameters: { weight: 0 },
          },
        }),
      (r) => r.status !== 429,
      60_000,
    );
    expect(created.status).toBe(201);
    const res = await call(p.url, "POST", "/bots/flat-params/backtest", {
      data_source: "csv:sample-btc-usd-1d",
    });
    expect(res.status).toBe(202);
    const done = await finished("flat-params", res.body.task_id);
    expect(done.status).toBe("success");
    // The same code with its default weight (1) trades: see the first test.
    expect(done.result_summary).toMatchObject({ bars: 1000, trades: 0 });
  });

  it("ends a strategy that throws failed with strategy_error, its message and its own stack frames", async () => {
    const created = await eventually(
      "the checker takes the throwing strategy",
      () =>
        call(p.url, "POST", "/bots", {
          name: "Thrower",
          kind: "trading",
          strategy: { code: { files: [{ path: "strategy.ts", content: THROWS }] } },
        }),
      (r) => r.status !== 429,
      60_000,
    );
    expect(created.status).toBe(201);
    const res = await call(p.url, "POST", "/bots/thrower/backtest", {
      data_source: "csv:sample-btc-usd-1d",
    });
    const done = await finished("thrower", res.body.task_id);
    expect(done.status).toBe("failed");
    const [head, ...frames] = (done.result_summary.error as string).split("\n");
    expect(head).toBe("strategy_error: RangeError: boom at bar 30");
    expect(frames.length).toBeGreaterThan(0);
    // The frame names the uploaded file's line of the throw, not a line of the bundle (which
    // inlines the SDK first): mapped with the source map kept beside the bundle.
    const line = THROWS.split("\n").findIndex((l) => l.includes('throw new RangeError("boom')) + 1;
    expect(line).toBeGreaterThan(1);
    expect(frames[0]).toMatch(new RegExp(`^\\s+at .*\\(?strategy\\.ts:${line}:\\d+\\)?$`));
    // No path of the host's leaks into what the strategy's author reads.
    expect(frames.join("\n")).not.toMatch(/\/work\/|node_modules|services\//);
  });

  it("keeps a failed run's strategy lines written before the failure: GET .../logs shows them, TypeScript and Python alike", async () => {
    const tsThrows = COUNTER_STRATEGY.replace(
      'ctx.log.info("bar", { seen });',
      'ctx.log.info("bar", { seen });\n    if (seen === 12) throw new Error("stop at 12");',
    );
    const pyThrows = `def init(ctx):
    ctx.log("init")


def on_bar(ctx):
    ctx.state["seen"] = ctx.state.get("seen", 0) + 1
    ctx.log(f"bar {ctx.state['seen']}")
    if ctx.state["seen"] == 12:
        raise RuntimeError("stop at 12")
`;
    for (const [slug, code] of [
      ["ts-logs-fail", { files: [{ path: "strategy.ts", content: tsThrows }] }],
      ["py-logs-fail", { language: "python", files: [{ path: "strategy.py", content: pyThrows }] }],
    ] as const) {
      const created = await eventually(
        `the checker takes ${slug}`,
        () =>
          call(p.url, "POST", "/bots", { name: slug, slug, kind: "trading", strategy: { code } }),
        (r) => r.status !== 429,
        60_000,
      );
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const res = await call(p.url, "POST", `/bots/${slug}/backtest`, {
        data_source: "csv:sample-btc-usd-1d",
      });
      const done = await finished(slug, res.body.task_id);
      expect(done.status).toBe("failed");
      expect(done.result_summary.error).toMatch(/^strategy_error: .*stop at 12/);
      const logs = await call(p.url, "GET", `/bots/${slug}/deployments/${res.body.id}/logs`);
      expect(logs.status, JSON.stringify(logs.body)).toBe(200);
      expect(logs.body).toMatchObject({ status: "failed", error: done.result_summary.error });
      const lines = logs.body.strategy_logs as { message: string; fields?: { seen: number } }[];
      // init's line, then one a bar up to and with the line of the bar that threw.
      const seen = lines.slice(1).map((l) => l.fields?.seen ?? Number(l.message.slice(4)));
      expect(lines[0]!.message).toBe("init");
      expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      // Its results are still refused: a failed run has no figures.
      const results = await call(p.url, "GET", `/bots/${slug}/deployments/${res.body.id}/results`);
      expect(results.status).toBe(409);
    }
  }, 120_000);
});
