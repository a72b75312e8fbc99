import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateSchema, openDatabase, schemaDb, type Database } from "@svc/lib/db";
import { migrations } from "../../migrations/index.js";
import type { BotsDatabase } from "./bots.table.js";
import { trialReturns } from "./trials.repository.js";

const LAST = "2026-11-29T0700-trial-returns-with-results";
const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < LAST));
const ids = {
  bot: "00000000-0000-4000-8000-000000000001",
  withResult: "00000000-0000-4000-8000-000000000002",
  legacy: "00000000-0000-4000-8000-000000000003",
};

// The TrialLedger kept every trial's daily returns beside its result's: the migration keeps them
// once, and a trial recorded before results were kept loses none.
describe("the migration that keeps a trial's daily returns with its result", () => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({});
    const db = database.db;
    await migrateSchema(db, "bots", before);
    await sql`insert into bots.bots (id, slug, name, kind, status, current_version, spec_hash, spec, created_by)
      values (${ids.bot}, 'm', 'm', 'trading', 'draft', 1, 'h', '{}', 'user|a')`.execute(db);
    await sql`insert into bots.bot_deployments (id, bot_id, version, target, status, task_id, request)
      values (${ids.withResult}, ${ids.bot}, 1, 'backtest', 'success', 'bt-1', '{}')`.execute(db);
    await sql`insert into bots.backtest_results (deployment_id, equity, bars_per_point, daily_returns, symbol, trade_count)
      values (${ids.withResult}, '[]', 1,
        '[{"date":"2020-01-01","value":0.01},{"date":"2020-01-02","value":-0.02}]', 'X', 0)`.execute(
      db,
    );
    for (const [id, returns] of [
      [ids.withResult, "[0.01,-0.02]"],
      [ids.legacy, "[0.03,0.04,0.05]"],
    ])
      await sql`insert into bots.trial_ledger (trial_id, bot_id, version, spec_hash, strategy_family, parameters, data_source, daily_returns, sharpe)
        values (${id}, ${ids.bot}, 1, 'h', 'ma_crossover', '{}', 'synthetic:1', ${returns}::jsonb, 0)`.execute(
        db,
      );
    await migrateSchema(db, "bots", migrations);
  }, 120_000);
  afterAll(async () => database?.close());

  it("counts every trial's returns, and keeps them in the ledger only where no result has them", async () => {
    const { rows } = await sql<{
      trial_id: string;
      observations: number;
      daily_returns: number[] | null;
    }>`select trial_id, observations, daily_returns from bots.trial_ledger order by trial_id`.execute(
      database.db,
    );
    expect(rows).toEqual([
      { trial_id: ids.withResult, observations: 2, daily_returns: null },
      { trial_id: ids.legacy, observations: 3, daily_returns: [0.03, 0.04, 0.05] },
    ]);
  });

  it("answers each trial's returns, from its result or from the ledger", async () => {
    const db = schemaDb<BotsDatabase>(database.db, "bots");
    const got = await trialReturns(db, [ids.legacy, ids.withResult, "not-a-uuid", ids.bot]);
    expect(got.sort((a, b) => a.trial_id.localeCompare(b.trial_id))).toEqual([
      { trial_id: ids.withResult, daily_returns: [0.01, -0.02] },
      { trial_id: ids.legacy, daily_returns: [0.03, 0.04, 0.05] },
    ]);
  });
});
