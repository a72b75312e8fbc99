import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const spec = (fast: number) => ({
  name: "Ledger bot",
  slug: "ledger-bot",
  kind: "trading",
  strategy: { family: "ma_crossover", parameters: { fast, slow: 40 } },
  engine: { fee_bps: 5 },
});

// SVC_TRIAL_LEDGER_N_ENFORCE: N, DSR and PBO come from the backtests the bots service recorded.
describe("the trial-ledger gate", () => {
  let p: RunningPlatform;
  const hashes: string[] = [];
  const count = async (table: string) =>
    (
      await sql<{
        n: number;
      }>`select count(*)::int as n from ${sql.table(`promotion.${table}`)}`.execute(
        p.platform.db.db,
      )
    ).rows[0]!.n;

  beforeAll(async () => {
    p = await startTestPlatform("pglite", { SVC_TRIAL_LEDGER_N_ENFORCE: "true" });
    hashes.push((await call(p.url, "POST", "/bots", spec(5))).body.spec_hash);
    for (const fast of [10, 20])
      hashes.push(
        (await call(p.url, "PUT", "/bots/ledger-bot", { spec: spec(fast) })).body.spec_hash,
      );
    // Versions 1 and 3 are backtested; version 2 never is.
    for (const version of [1, 3])
      await call(p.url, "POST", "/bots/ledger-bot/backtest", { version });
    await eventually(
      "the promotion service records both backtests and knows all three versions",
      async () => ({ trials: await count("trials"), versions: await count("known_bot_versions") }),
      (c) => c.trials === 2 && c.versions === 3,
      // Two cold backtests, then the relay and the consumer: as long as sweep-evidence's wait.
      60_000,
    );
  }, PLATFORM_START_TIMEOUT_MS + 60_000);
  afterAll(async () => {
    await p?.close();
  });

  const submit = (id: string, version: number) =>
    call(p.url, "POST", "/promotion/requests", {
      request_id: id,
      kind: "strategy",
      artifact: { bot_ref: "ledger-bot", version, version_hash: hashes[version - 1] },
      validation: { verdict: "PASS" },
      risk: { decision: "APPROVE" },
      // A self-reported count the gate must ignore.
      evidence: {
        deflated_sharpe_ratio: 0.99,
        probability_of_backtest_overfitting: 0.01,
        trial_count: 1,
        trial_ledger_ref: "self",
      },
    });

  const returns = async (schema: "promotion" | "bots") =>
    (
      await sql<{ trial_id: string; daily: number[] | null }>`${sql.raw(
        schema === "promotion"
          ? "select trial_id, daily_returns as daily from promotion.trials"
          : "select deployment_id as trial_id, jsonb_path_query_array(daily_returns::jsonb, '$[*].value') as daily from bots.backtest_results",
      )} order by 1`.execute(p.platform.db.db)
    ).rows;

  it("announces a trial without its daily returns: they stay with the backtest's result", async () => {
    const events = await sql<{
      bytes: number;
    }>`select length(payload) as bytes from bots.outbox where type = 'svc.events.v1.TrialRecorded'`.execute(
      p.platform.db.db,
    );
    // 1000 daily returns would be 8 kB of doubles; the event names the trial and counts them.
    expect(events.rows.map((r) => r.bytes)).toHaveLength(2);
    for (const r of events.rows) expect(r.bytes).toBeLessThan(1_000);
    expect((await returns("promotion")).map((r) => r.daily)).toEqual([null, null]);
  });

  it("takes N from the ledger and recomputes DSR and PBO from its returns", async () => {
    const res = await submit("ledger-1", 3);
    const gate = res.body.gates.find((g: { name: string }) => g.name === "trial_ledger");
    expect(gate.detail).toMatch(
      /^N 2 \(from the ledger\); DSR [\d.]+ (>=|<) 0.95; PBO [\d.]+ (<=|>) 0.5 \(CSCV over 2 trials on csv:sample-btc-usd-1d\)$/,
    );
    expect(res.body.status).toBe(gate.passed ? "pending" : "denied");
    // The gate read the returns from the bots service and keeps them: the next request reads none.
    const kept = await returns("promotion");
    expect(kept).toEqual(await returns("bots"));
    expect(kept.every((r) => r.daily?.length === 1000)).toBe(true);
  });

  it("denies a version that was never backtested", async () => {
    const res = await submit("ledger-2", 2);
    expect(res.body.status).toBe("denied");
    expect(res.body.gates.find((g: { name: string }) => g.name === "trial_ledger").detail).toBe(
      "the TrialLedger has no backtest of version 2; run one first",
    );
  });
});
