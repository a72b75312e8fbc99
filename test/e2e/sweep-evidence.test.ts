import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { deflatedSharpeFromTrials, probabilityOfBacktestOverfitting } from "@svc/lib/quant";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

// Lab evidence that counts (SVC_TRIAL_LEDGER_N_ENFORCE): a sweep's trials are the N the DSR
// deflates by and, on the same bars as the version's backtest, the matrix PBO's CSCV reads; the
// gate reads both from the ledger, and a bot with fewer trials than its minimum is refused with
// what to do.

const spec = (fast: number) => ({
  name: "Evidence bot",
  slug: "ev-bot",
  kind: "trading",
  strategy: { family: "ma_crossover", parameters: { fast, slow: 40 } },
  engine: { fee_bps: 5 },
});
const bars = {
  data_source: "synthetic:5",
  start: "2003-01-01T00:00:00Z",
  end: "2004-09-01T00:00:00Z",
};
const MIN_TRIALS = 6;

describe("a sweep as the trial-ledger gate's evidence (real Postgres)", () => {
  let p: RunningPlatform;
  const hashes: string[] = [];
  const promotionTrials = async () =>
    (
      await sql<{
        n: number;
      }>`select count(*)::int as n from promotion.trials`.execute(p.platform.db.db)
    ).rows[0]!.n;
  const submit = (id: string, version: number) =>
    call(p.url, "POST", "/promotion/requests", {
      request_id: id,
      kind: "strategy",
      artifact: { bot_ref: "ev-bot", version, version_hash: hashes[version - 1] },
      validation: { verdict: "PASS" },
      risk: { decision: "APPROVE" },
      // What a request claims; the gate must not read it.
      evidence: {
        deflated_sharpe_ratio: 0.99,
        probability_of_backtest_overfitting: 0.01,
        trial_count: 1000,
        trial_ledger_ref: "self",
      },
    });
  const sweepDone = (id: string) =>
    eventually(
      "the sweep ends",
      async () => (await call(p.url, "GET", `/bots/ev-bot/sweeps/${id}`)).body,
      (s) => s.status === "done",
      120_000,
    );

  beforeAll(async () => {
    p = await startTestPlatform("postgres", {
      SVC_TRIAL_LEDGER_N_ENFORCE: "true",
      SVC_TRIAL_LEDGER_MIN_TRIALS: String(MIN_TRIALS),
    });
    hashes.push((await call(p.url, "POST", "/bots", spec(10))).body.spec_hash);
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
  }, 60_000);

  it("fewer trials than the minimum: a 412 naming the count and the minimum, nothing recorded", async () => {
    expect((await call(p.url, "POST", "/bots/ev-bot/backtest", { ...bars })).status).toBe(202);
    await eventually(
      "the promotion service records the trial",
      promotionTrials,
      (n) => n === 1,
      60_000,
    );
    const res = await submit("ev-1", 1);
    expect(res.status).toBe(412);
    expect(res.body.error.code).toBe("too_few_trials");
    expect(res.body.error.message).toContain("holds 1 trial of bot ev-bot");
    expect(res.body.error.message).toContain(
      `at least ${MIN_TRIALS} (SVC_TRIAL_LEDGER_MIN_TRIALS)`,
    );
    expect(res.body.error.message).toContain("POST /bots/ev-bot/sweeps");
    expect((await call(p.url, "GET", "/promotion/requests/ev-1")).status).toBe(404);
  }, 120_000);

  it("after a sweep on the same bars: N counts every combination and PBO runs over the sweep's matrix", async () => {
    const sweep = await call(p.url, "POST", "/bots/ev-bot/sweeps", {
      request_key: "evidence",
      parameters: [
        { name: "fast", values: [5, 10, 15] },
        { name: "slow", values: [30, 50] },
      ],
      ...bars,
    });
    expect(sweep.status).toBe(202);
    await sweepDone(sweep.body.id);
    await eventually(
      "the promotion service records the sweep",
      promotionTrials,
      (n) => n === 7,
      60_000,
    );

    const res = await submit("ev-2", 1);
    expect(res.status).toBe(201);
    const gate = res.body.gates.find((g: { name: string }) => g.name === "trial_ledger");
    expect(gate.detail).toMatch(/^N 7 \(from the ledger\); DSR [\d.]+ /);
    expect(gate.detail).toContain("(CSCV over 7 trials on synthetic:5)");

    // The same figures from the bots service's own ledger: the version's backtest selected, the
    // sweep's trials beside it.
    const { rows } = await sql<{
      daily_returns: number[];
      trial_id: string;
    }>`select jsonb_path_query_array(r.daily_returns::jsonb, '$[*].value') as daily_returns, t.trial_id
      from bots.trial_ledger t join bots.backtest_results r on r.deployment_id = t.trial_id
      order by t.recorded_at, t.trial_id`.execute(p.platform.db.db);
    const { rows: own } = await sql<{
      id: string;
    }>`select id from bots.bot_deployments where sweep_id is null and target = 'backtest'`.execute(
      p.platform.db.db,
    );
    const selected = rows.find((r) => r.trial_id === own[0]!.id)!.daily_returns;
    const all = rows.map((r) => r.daily_returns);
    const dsr = deflatedSharpeFromTrials(selected, all).dsr;
    const blocks = Math.min(16, Math.floor(selected.length / 2 / 2) * 2);
    const pbo = probabilityOfBacktestOverfitting(all, blocks).pbo;
    const round = (x: number) => Math.round(x * 10_000) / 10_000;
    expect(gate.detail).toContain(`DSR ${round(dsr)} `);
    expect(gate.detail).toContain(`PBO ${round(pbo)} `);
  }, 180_000);

  it("a version only swept has no trial of its own parameters to select: denied, saying so", async () => {
    hashes.push((await call(p.url, "PUT", "/bots/ev-bot", { spec: spec(12) })).body.spec_hash);
    const sweep = await call(p.url, "POST", "/bots/ev-bot/sweeps", {
      request_key: "v2-only",
      version: 2,
      parameters: [{ name: "fast", values: [8, 12] }],
      ...bars,
    });
    expect(sweep.status).toBe(202);
    await sweepDone(sweep.body.id);
    await eventually("the promotion service records it", promotionTrials, (n) => n === 9, 60_000);
    const res = await submit("ev-3", 2);
    expect(res.body.status).toBe("denied");
    expect(res.body.gates.find((g: { name: string }) => g.name === "trial_ledger").detail).toBe(
      "the TrialLedger has only sweep runs of version 2 (other parameters than its own); backtest the version itself",
    );
  }, 180_000);
});
