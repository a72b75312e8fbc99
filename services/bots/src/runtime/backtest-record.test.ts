import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { riskLimitsFrom } from "../execution/risk-controls/index.js";
import { computeBacktest } from "./backtest-compute.js";
import { finishedRun } from "./backtest-record.js";

const outcome = (await computeBacktest(
  {
    id: 1,
    family: "ma_crossover",
    params: { fast: 3, slow: 9, allow_short: true },
    settings: { initialCash: 100_000, feeBps: 7, slippageBps: 3, positionSize: 0.7 },
    risk: riskLimitsFrom({ maxOrderUnits: 1_000_000 }),
    symbol: "BTC-USD",
    bars: { dataSource: "synthetic:11", timeframe: "1d" },
  },
  new Int32Array(new SharedArrayBuffer(8)),
  { describe: async () => undefined, chunks: async function* () {} },
))!;
const { metrics, record } = finishedRun(outcome);

describe("a run's results, serialised on the worker", () => {
  it("keeps the figures and leaves the curve and trades to the record", () => {
    expect(metrics).not.toHaveProperty("results");
    expect(metrics.trades).toBeGreaterThan(10);
    expect(record.tradeCount).toBe(outcome.results!.trades.length);
    // The daily returns, once, with their dates: what GetTrialReturns reads the values out of.
    const kept = JSON.parse(record.dailyReturnsJson) as Array<{ date: string; value: number }>;
    expect(kept.map((d) => d.value)).toEqual([...outcome.dailyReturns]);
  });

  // The trades reach the table through jsonb: every double must come back the same to the bit.
  const sql = `select t.* from jsonb_to_recordset($1::jsonb) as t(number integer, entry_time timestamptz,
    entry_price double precision, exit_price double precision, size double precision,
    pnl double precision, fees double precision)`;
  const expectSameTrades = (rows: Array<Record<string, unknown>>) => {
    const trades = outcome.results!.trades;
    expect(rows).toHaveLength(trades.length);
    rows.forEach((r, i) => {
      const t = trades[i]!;
      expect(Number(r.number)).toBe(i + 1);
      expect(new Date(r.entry_time as string).getTime()).toBe(t.entryTime);
      expect([r.entry_price, r.exit_price, r.size, r.pnl, r.fees].map(Number)).toEqual([
        t.entryPrice,
        t.exitPrice,
        t.units,
        t.pnl,
        t.fees,
      ]);
    });
  };
  const pool = new pg.Pool({
    connectionString:
      process.env.SVC_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
    max: 1,
  });
  afterAll(() => pool.end());

  it("stores trades whose numbers come back from Postgres to the bit", async () => {
    expectSameTrades((await pool.query(sql, [record.tradesJson])).rows);
  });

  it("stores trades whose numbers come back from PGlite to the bit", async () => {
    const db = await PGlite.create();
    try {
      expectSameTrades((await db.query<Record<string, unknown>>(sql, [record.tradesJson])).rows);
    } finally {
      await db.close();
    }
    // PGlite compiles its WebAssembly at start: seconds on a busy 2-core machine.
  }, 60_000);
});
