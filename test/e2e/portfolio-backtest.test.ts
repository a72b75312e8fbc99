import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MA_CROSSOVER_EXAMPLE } from "@svc/strategy-sdk/check";
import type { RunningPlatform } from "@svc/all-in-one";
import { as } from "../support/paper.js";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const SAMPLE = readFileSync(
  new URL("../../services/bots/data/sample-btc-usd-1d.csv", import.meta.url),
  "utf8",
)
  .trim()
  .split("\n");
const HEADER = SAMPLE[0]!;
const ROWS = SAMPLE.slice(1).map((l) => l.split(","));

/** The sample's dates with the prices of the row `shift` later, times `scale`: another walk. */
function walk(shift: number, scale: number, drop: (i: number) => boolean = () => false): string {
  const out = [HEADER];
  ROWS.forEach((row, i) => {
    if (drop(i)) return;
    const from = ROWS[(i + shift) % ROWS.length]!;
    const price = (k: number) => (Number(from[k]) * scale).toFixed(4);
    out.push([row[0], price(1), price(2), price(3), price(4), from[5]].join(","));
  });
  return out.join("\n");
}

const UNIVERSE = ["AAPL", "MSFT", "GOOG"];
const spec = (slug: string, strategy: object, engine: object = {}) => ({
  name: slug,
  slug,
  kind: "trading",
  universe: { symbols: UNIVERSE, timeframe: "1d" },
  strategy,
  engine: { initial_cash: 100000, fee_bps: 5, slippage_bps: 2, position_size: 1, ...engine },
});
const ALL = "csv:aapl-1d+csv:msft-1d+csv:goog-1d";

/** The three walks in one file with a symbol column, rows of the symbols interleaved by date. */
function oneFile(walks: [string, string][]): string {
  const rows = walks.map(([symbol, csv]) =>
    csv
      .split("\n")
      .slice(1)
      .map((l) => `${symbol},${l}`),
  );
  const byDate = rows.flat().sort((a, b) => a.split(",")[1]!.localeCompare(b.split(",")[1]!));
  return [`symbol,${HEADER}`, ...byDate].join("\n");
}

describe("a universe backtested as one portfolio (real Postgres)", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("postgres", { SVC_BACKTEST_WORKERS: "2" });
    const up = (name: string, symbol: string, csv: string) =>
      call(p.url, "POST", "/datasets", { name, symbol, timeframe: "1d", csv });
    const walks = [
      ["aapl-1d", "AAPL", walk(0, 0.005)],
      ["msft-1d", "MSFT", walk(300, 0.01)],
      // GOOG has no bars for ten days in the middle: a gap reported, not filled.
      ["goog-1d", "GOOG", walk(600, 0.004, (i) => i >= 500 && i < 510)],
    ] as const;
    for (const [name, symbol, csv] of walks) {
      const res = await up(name, symbol, csv);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    // The same bars in one data set with a symbol column.
    const one = await up("tech-1d", "", oneFile(walks.map(([, sym, csv]) => [sym, csv])));
    expect(one.status, JSON.stringify(one.body)).toBe(201);
    expect(one.body.symbols).toEqual(["AAPL", "GOOG", "MSFT"]);
    const created = await call(
      p.url,
      "POST",
      "/bots",
      spec("tech", { family: "ma_crossover", parameters: { fast: 5, slow: 20 } }),
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }, PLATFORM_START_TIMEOUT_MS + 60_000);
  afterAll(async () => {
    await p?.close();
  });

  const finished = (slug: string, id: string) =>
    eventually(
      `backtest ${id} of ${slug} ends`,
      async () =>
        (await call(p.url, "GET", `/bots/${slug}/deployments`)).body.items.find(
          (x: { id: string }) => x.id === id,
        ),
      (d) => d?.status === "success" || d?.status === "failed",
      90_000,
    );

  it("refuses a universe its data does not cover, naming every symbol missing", async () => {
    const some = await call(p.url, "POST", "/bots/tech/backtest", {
      data_source: "csv:aapl-1d+csv:msft-1d",
    });
    expect(some.status).toBe(400);
    expect(some.body.error).toMatchObject({
      code: "universe_not_covered",
      details: { field: "data_source" },
    });
    expect(some.body.error.message).toContain("no bars of GOOG");
    // The bot's default data set holds BTC-USD: never traded as if it were the first symbol.
    const none = await call(p.url, "POST", "/bots/tech/backtest", {});
    expect(none.status).toBe(400);
    expect(none.body.error.message).toContain("no bars of AAPL, MSFT, GOOG");
    const listed = await call(p.url, "GET", "/bots/tech/deployments");
    expect(listed.body.items).toHaveLength(0);
  });

  it("trades every symbol from one cash balance and reports each symbol and the gaps", async () => {
    const res = await call(p.url, "POST", "/bots/tech/backtest", { data_source: ALL });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.progress.bars_total).toBe(String(1000 + 1000 + 990));
    const done = await finished("tech", res.body.id);
    expect(done.status, JSON.stringify(done.result_summary)).toBe("success");
    const r = (await call(p.url, "GET", `/bots/tech/deployments/${res.body.id}/results`)).body;
    expect(r.symbols.map((s: { symbol: string }) => s.symbol)).toEqual(UNIVERSE);
    for (const s of r.symbols) {
      expect(s.trades, s.symbol).toBeGreaterThan(0);
      expect(s.fees, s.symbol).toBeGreaterThan(0);
      expect(s.turnover, s.symbol).toBeGreaterThan(0);
      expect(s.exposure, s.symbol).toBeGreaterThan(0);
    }
    const sum = r.symbols.reduce((n: number, s: { pnl: number }) => n + s.pnl, 0);
    expect(sum).toBeCloseTo(r.metrics.pnl, 2);
    expect(r.metrics.trades).toBe(
      r.symbols.reduce((n: number, s: { trades: number }) => n + s.trades, 0),
    );
    expect(r.metrics).toMatchObject({ bars: 2990 });
    expect(r.metrics.turnover).toBeGreaterThan(0);
    expect(r.metrics.gross_exposure).toBeGreaterThan(0);
    expect(r.metrics.gross_exposure).toBeLessThanOrEqual(1.05);
    expect(r.gaps).toEqual([
      { symbol: "AAPL", bars: "1000", outside: "0", missing: "0", first_missing: null },
      { symbol: "MSFT", bars: "1000", outside: "0", missing: "0", first_missing: null },
      {
        symbol: "GOOG",
        bars: "990",
        outside: "0",
        missing: "10",
        first_missing: `${ROWS[500]![0]}T00:00:00Z`,
      },
    ]);
    expect(r.equity).toHaveLength(1000);
    // The trades name their symbol, and add up to the portfolio's P&L.
    const trades = await call(
      p.url,
      "GET",
      `/bots/tech/deployments/${res.body.id}/trades?page_size=1000`,
    );
    const symbols = new Set(trades.body.items.map((t: { symbol: string }) => t.symbol));
    expect(symbols).toEqual(new Set(UNIVERSE));
    const pnl = trades.body.items.reduce((n: number, t: { pnl: number }) => n + t.pnl, 0);
    expect(pnl).toBeCloseTo(r.metrics.pnl, 2);
  }, 120_000);

  it("reads a portfolio from one data set with a symbol column, as from one data set per symbol", async () => {
    const [apart, together] = await Promise.all(
      [ALL, "csv:tech-1d"].map(async (data_source) => {
        const res = await call(p.url, "POST", "/bots/tech/backtest", { data_source });
        expect(res.status, JSON.stringify(res.body)).toBe(202);
        expect(res.body.progress.bars_total).toBe(String(2990));
        const done = await finished("tech", res.body.id);
        expect(done.status, JSON.stringify(done.result_summary)).toBe("success");
        return (await call(p.url, "GET", `/bots/tech/deployments/${res.body.id}/results`)).body;
      }),
    );
    // The same bars aligned the same way: the same portfolio, gap for gap and trade for trade.
    expect(together.gaps).toEqual(apart.gaps);
    expect(together.gaps[2]).toMatchObject({ symbol: "GOOG", missing: "10" });
    expect(together.symbols).toEqual(apart.symbols);
    expect(together.metrics.pnl).toBe(apart.metrics.pnl);
    expect(together.equity).toEqual(apart.equity);
    // A universe symbol the data set does not hold is named, never dropped.
    const wider = await call(p.url, "POST", "/bots", {
      ...spec("wider", { family: "ma_crossover", parameters: { fast: 5, slow: 20 } }),
      universe: { symbols: [...UNIVERSE, "AMZN"], timeframe: "1d" },
    });
    expect(wider.status, JSON.stringify(wider.body)).toBe(201);
    const refused = await call(p.url, "POST", "/bots/wider/backtest", {
      data_source: "csv:tech-1d",
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe("universe_not_covered");
    expect(refused.body.error.message).toContain("no bars of AMZN in csv:tech-1d");
    // A universe of part of its symbols reads only those.
    const pair = await call(p.url, "POST", "/bots", {
      ...spec("pair", { family: "ma_crossover", parameters: { fast: 5, slow: 20 } }),
      universe: { symbols: ["MSFT", "AAPL"], timeframe: "1d" },
    });
    expect(pair.status).toBe(201);
    const res = await call(p.url, "POST", "/bots/pair/backtest", { data_source: "csv:tech-1d" });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.progress.bars_total).toBe("2000");
  }, 180_000);

  it("holds the capital threshold across the portfolio", async () => {
    const capped = await call(p.url, "POST", "/bots", {
      ...spec("capped", { family: "ma_crossover", parameters: { fast: 5, slow: 20 } }),
      risk: { capital_limit: 40000 },
    });
    expect(capped.status, JSON.stringify(capped.body)).toBe(201);
    const res = await call(p.url, "POST", "/bots/capped/backtest", { data_source: ALL });
    const done = await finished("capped", res.body.id);
    expect(done.status).toBe("success");
    // Each symbol alone (a third of the equity) is under the limit; two together are over it.
    expect(done.result_summary.risk_rejections.capital_threshold).toBeGreaterThan(0);
  }, 120_000);

  it("shorts only where the engine allows it, paying its borrow cost", async () => {
    const shorting = {
      family: "ma_crossover",
      parameters: { fast: 5, slow: 20, allow_short: true },
    };
    for (const [slug, engine] of [
      ["long-only", {}],
      [
        "short-ok",
        { allow_short: true, borrow_bps: 300, symbol_costs: [{ symbol: "GOOG", fee_bps: 40 }] },
      ],
    ] as const) {
      const made = await call(p.url, "POST", "/bots", spec(slug, shorting, engine));
      expect(made.status, JSON.stringify(made.body)).toBe(201);
    }
    const ids = await Promise.all(
      ["long-only", "short-ok"].map(
        async (slug) =>
          (await call(p.url, "POST", `/bots/${slug}/backtest`, { data_source: ALL })).body.id,
      ),
    );
    const [longOnly, shortOk] = await Promise.all([
      finished("long-only", ids[0]),
      finished("short-ok", ids[1]),
    ]);
    expect(longOnly.status).toBe("success");
    expect(longOnly.result_summary.risk_rejections.short_not_allowed).toBeGreaterThan(0);
    expect(longOnly.result_summary.borrow_cost).toBe(0);
    expect(shortOk.status).toBe("success");
    expect(shortOk.result_summary.risk_rejections).toBeUndefined();
    expect(shortOk.result_summary.borrow_cost).toBeGreaterThan(0);
    const r = (await call(p.url, "GET", `/bots/short-ok/deployments/${ids[1]}/results`)).body;
    const bySymbol = Object.fromEntries(r.symbols.map((s: { symbol: string }) => [s.symbol, s]));
    // GOOG pays 40 bps a fill, the others 5: far more fees on a similar turnover.
    expect(bySymbol.GOOG.fees / bySymbol.GOOG.turnover).toBeGreaterThan(
      4 * (bySymbol.AAPL.fees / bySymbol.AAPL.turnover),
    );
    // A cost of a symbol not traded is refused up front.
    const stray = await call(
      p.url,
      "POST",
      "/bots",
      spec("stray", shorting, { symbol_costs: [{ symbol: "TSLA", fee_bps: 1 }] }),
    );
    expect(stray.status).toBe(201);
    const refused = await call(p.url, "POST", "/bots/stray/backtest", { data_source: ALL });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.field).toBe("engine.symbol_costs");
  }, 180_000);

  it("runs a strategy of code over the whole universe in the sandbox", async () => {
    const created = await eventually(
      "the strategy checker's thread starts and checks the code",
      () =>
        call(
          p.url,
          "POST",
          "/bots",
          spec("tech-code", {
            code: { files: [{ path: "strategy.ts", content: MA_CROSSOVER_EXAMPLE }] },
            parameters: { fast: 5, slow: 20, weight: 0.3 },
          }),
        ),
      (r) => r.status !== 429,
      60_000,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const res = await call(p.url, "POST", "/bots/tech-code/backtest", { data_source: ALL });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const done = await finished("tech-code", res.body.id);
    expect(done.status, JSON.stringify(done.result_summary)).toBe("success");
    const r = (await call(p.url, "GET", `/bots/tech-code/deployments/${res.body.id}/results`)).body;
    for (const s of r.symbols) expect(s.trades, s.symbol).toBeGreaterThan(0);
    const sum = r.symbols.reduce((n: number, s: { pnl: number }) => n + s.pnl, 0);
    expect(sum).toBeCloseTo(r.metrics.pnl, 2);
  }, 180_000);

  it("refuses a paper session of a universe's code strategy and a stress run of a universe, saying why", async () => {
    const paper = await call(p.url, "POST", "/bots/tech-code/paper/start", {
      approved_promotion: "x",
    });
    expect(paper.status).toBe(400);
    expect(paper.body.error.details.field).toBe("universe.symbols");
    expect(paper.body.error.message).toMatch(
      /a strategy of code trades a universe in backtests only/,
    );
    const stress = await call(p.url, "POST", "/bots/tech/stress", {}, as("alice"));
    expect(stress.status).toBe(400);
    expect(stress.body.error.details.field).toBe("universe.symbols");
    expect(stress.body.error.message).toMatch(/sweeps and stress runs trade one symbol/);
  });

  it("runs the conformance suite of a universe on its portfolio", async () => {
    const capped = await call(p.url, "POST", "/bots", {
      ...spec("capped-cf", { family: "ma_crossover", parameters: { fast: 5, slow: 20 } }),
      risk: {
        capital_limit: 40000,
        credit_limit: 5000,
        max_order_units: 1000,
        max_order_notional: 50000,
        price_collar_pct: 5,
        max_orders_per_window: 10,
        throttle_window_s: 60,
        duplicate_window_s: 30,
        restricted_symbols: ["XYZ"],
      },
    });
    expect(capped.status, JSON.stringify(capped.body)).toBe(201);
    const started = await call(p.url, "POST", "/bots/capped-cf/conformance", {}, as("alice"));
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    const done = await eventually(
      "the conformance run completes",
      () => call(p.url, "GET", started.body.results.href),
      (r) => r.status === 200 && r.body.status !== "pending" && r.body.status !== "running",
      30_000,
    );
    expect(done.body.status, JSON.stringify(done.body)).toBe("completed");
    const byName = new Map(
      (done.body.cases as { name: string; observed: string; passed: boolean }[]).map((c) => [
        c.name,
        c,
      ]),
    );
    // Two symbols each under the limit are refused together: the portfolio's gross value counts.
    expect(byName.get("capital_threshold")).toMatchObject({
      passed: true,
      observed: expect.stringMatching(
        /^AAPL placed; MSFT refused by capital_threshold: limit 40000/,
      ),
    });
    // The kill switch drains every symbol of the universe.
    expect(byName.get("kill_switch_drain")).toMatchObject({
      passed: true,
      observed: expect.stringContaining("(3 symbols ordered)"),
    });
  }, 60_000);
});
