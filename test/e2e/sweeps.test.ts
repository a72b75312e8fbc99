import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

// Parameter sweeps on real Postgres, through the gateway: each combination a backtest of the
// queue and a trial of the TrialLedger; the table sorted by a metric; a retry with the same key
// the same sweep; a walk-forward's out-of-sample runs picked from its in-sample winners.
// (A process killed mid-sweep: sweeps-interrupted.test.ts.)

const DAY = 86_400_000;
const spec = (slug: string) => ({
  name: slug,
  slug,
  kind: "trading",
  strategy: { family: "ma_crossover", parameters: { fast: 10, slow: 40 } },
  engine: { initial_cash: 100000, fee_bps: 5, slippage_bps: 2, position_size: 1 },
});
const range = (days: number) => ({
  data_source: "synthetic:7",
  start: "2001-01-01T00:00:00Z",
  end: new Date(Date.UTC(2001, 0, 1) + days * DAY).toISOString(),
});

interface SweepBody {
  id: string;
  status: string;
  combinations: number;
  skipped?: number;
  runs_total: number;
  runs_succeeded?: number;
  runs_pending?: number;
  results?: Array<{
    index: number;
    parameters: Record<string, unknown>;
    deployment_id: string;
    status: string;
    fold?: number;
    out_of_sample?: boolean;
    metrics?: Record<string, number>;
  }>;
  folds?: Array<{
    fold: number;
    status: string;
    chosen_parameters?: Record<string, unknown>;
    in_sample_metric?: number;
    in_sample_end: string;
    out_of_sample_end: string;
    out_of_sample_deployment_id?: string;
  }>;
  walk_forward?: { folds_done?: number; out_of_sample_return?: number };
}

describe("parameter sweeps (real Postgres)", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("postgres", { SVC_SWEEP_MAX_COMBINATIONS: "40" });
    for (const slug of ["sw-grid", "sw-rand-a", "sw-rand-b", "sw-wf", "sw-cancel"])
      expect((await call(p.url, "POST", "/bots", spec(slug))).status).toBe(201);
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
  }, 60_000);

  const sweepOf = async (bot: string, id: string, query = "") => {
    const res = await call(p.url, "GET", `/bots/${bot}/sweeps/${id}${query}`);
    expect(res.status).toBe(200);
    return res.body as SweepBody;
  };
  const finished = (bot: string, id: string) =>
    eventually(
      `sweep ${id} ends`,
      () => sweepOf(bot, id),
      (s) => s.status === "done",
      120_000,
    );
  const trials = async (bot: string) => {
    const res = await call(p.url, "GET", `/bots/${bot}/trials?limit=1000`);
    expect(res.status).toBe(200);
    return res.body as {
      trial_count: number;
      items: Array<{
        trial_id: string;
        parameters: Record<string, unknown>;
        sharpe: number;
        sweep_id?: string;
      }>;
    };
  };

  it("a grid: every valid combination is one backtest and one trial, sortable by a metric", async () => {
    const body = {
      request_key: "grid-1",
      parameters: [
        { name: "fast", values: [5, 10, 20] },
        { name: "slow", min: 20, max: 60, step: 20 },
      ],
      ...range(400),
    };
    const res = await call(p.url, "POST", "/bots/sw-grid/sweeps", body);
    expect(res.status).toBe(202);
    const created = res.body as SweepBody;
    // fast 20 with slow 20 breaks slow > fast: left out and counted.
    expect([created.combinations, created.skipped, created.runs_total]).toEqual([8, 1, 8]);

    // The same key and request: the same sweep, nothing queued again.
    const again = await call(p.url, "POST", "/bots/sw-grid/sweeps", body);
    expect(again.status).toBe(202);
    expect(again.body.id).toBe(created.id);
    const other = await call(p.url, "POST", "/bots/sw-grid/sweeps", {
      ...body,
      parameters: [{ name: "fast", values: [5] }],
    });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe("request_key_reused");

    const done = await finished("sw-grid", created.id);
    expect([done.runs_succeeded, done.results!.length]).toEqual([8, 8]);
    const sharpes = done.results!.map((r) => r.metrics!.sharpe!);
    expect(sharpes).toEqual([...sharpes].sort((a, b) => b - a));
    const ascending = await sweepOf("sw-grid", created.id, "?sort_by=max_drawdown&ascending=true");
    const dd = ascending.results!.map((r) => r.metrics!.max_drawdown!);
    expect(dd).toEqual([...dd].sort((a, b) => a - b));
    expect(
      new Set(done.results!.map((r) => `${r.parameters.fast}/${r.parameters.slow}`)).size,
    ).toBe(8);

    // The ledger holds each run once, with the combination's parameters and the same Sharpe.
    const ledger = await trials("sw-grid");
    expect(ledger.trial_count).toBe(8);
    const byId = new Map(ledger.items.map((t) => [t.trial_id, t]));
    for (const r of done.results!) {
      const t = byId.get(r.deployment_id)!;
      expect(t.parameters).toEqual({ ...r.parameters });
      expect(t.sharpe).toBeCloseTo(r.metrics!.sharpe!, 6);
      expect(t.sweep_id).toBe(created.id);
    }
    // Different parameters give different runs: the sweep did not run the version's eight times.
    expect(new Set(sharpes.map((s) => s.toFixed(8))).size).toBeGreaterThan(1);

    const list = await call(p.url, "GET", "/bots/sw-grid/sweeps");
    expect(list.status).toBe(200);
    expect(list.body.items.map((s: SweepBody) => [s.id, s.status])).toEqual([[created.id, "done"]]);
  }, 180_000);

  it("bad requests are refused with what to fix, nothing queued", async () => {
    const post = (body: object) =>
      call(p.url, "POST", "/bots/sw-grid/sweeps", { request_key: "bad", ...body });
    const tooLarge = await post({
      parameters: [
        { name: "fast", min: 1, max: 10, step: 1 },
        { name: "slow", min: 11, max: 20, step: 1 },
      ],
    });
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.error.code).toBe("sweep_too_large");
    expect(tooLarge.body.error.message).toContain("the grid has 100 combinations");
    expect(tooLarge.body.error.message).toContain("at most 40 (SVC_SWEEP_MAX_COMBINATIONS)");
    const below = await post({ parameters: [{ name: "fast", values: [0, 3] }] });
    expect(below.status).toBe(400);
    expect(below.body.error.message).toBe("fast: 0 is below its declared minimum 1");
    const unknown = await post({ parameters: [{ name: "fsat", values: [3] }] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain("it declares fast, slow, allow_short");
    const noRange = await post({
      mode: "SWEEP_MODE_RANDOM",
      parameters: [{ name: "fast", values: [3] }],
    });
    expect(noRange.status).toBe(400);
    expect(noRange.body.error.message).toContain("samples");
    const wfNoRange = await post({
      parameters: [{ name: "fast", values: [3] }],
      walk_forward: { folds: 2 },
    });
    expect(wfNoRange.status).toBe(400);
    const wfShort = await post({
      parameters: [{ name: "fast", values: [3] }],
      walk_forward: { folds: 10, in_sample_segments: 10 },
      ...range(100),
    });
    expect(wfShort.status).toBe(400);
    expect(wfShort.body.error.message).toContain(
      "the range holds 100 bars: too few to cut into 20 segments",
    );
    const badSort = await call(
      p.url,
      "GET",
      `/bots/sw-grid/sweeps/00000000-0000-0000-0000-000000000000?sort_by=luck`,
    );
    expect(badSort.status).toBe(400);
    for (const id of ["00000000-0000-0000-0000-000000000000", "not-a-uuid"]) {
      const res = await call(p.url, "GET", `/bots/sw-grid/sweeps/${id}`);
      expect([id, res.status, res.body.error?.code]).toEqual([id, 404, "sweep_not_found"]);
    }
    // A NUL byte never reaches the store: the edge refuses it.
    expect((await call(p.url, "GET", "/bots/sw-grid/sweeps/x%00y")).status).toBe(400);
    expect((await call(p.url, "GET", "/bots/sw-grid/sweeps")).body.items).toHaveLength(1);
  }, 60_000);

  it("a random search with the same seed draws the same combinations", async () => {
    const body = {
      request_key: "r",
      mode: "SWEEP_MODE_RANDOM",
      samples: 5,
      seed: 99,
      parameters: [
        { name: "fast", min: 2, max: 30 },
        { name: "slow", min: 31, max: 90 },
      ],
      ...range(200),
    };
    const a = await call(p.url, "POST", "/bots/sw-rand-a/sweeps", body);
    const b = await call(p.url, "POST", "/bots/sw-rand-b/sweeps", body);
    expect([a.status, b.status]).toEqual([202, 202]);
    const [da, db] = [
      await finished("sw-rand-a", a.body.id),
      await finished("sw-rand-b", b.body.id),
    ];
    const combos = (s: SweepBody) =>
      s.results!.map((r) => [r.index, r.parameters.fast, r.parameters.slow]).sort();
    expect(combos(da)).toHaveLength(5);
    expect(combos(da)).toEqual(combos(db));
  }, 180_000);

  it("walk-forward: each fold's in-sample winner is backtested alone on the next segment", async () => {
    const res = await call(p.url, "POST", "/bots/sw-wf/sweeps", {
      request_key: "wf",
      parameters: [
        { name: "fast", values: [5, 15] },
        { name: "slow", values: [30, 60] },
      ],
      walk_forward: { folds: 2, in_sample_segments: 2 },
      ...range(800),
    });
    expect(res.status).toBe(202);
    expect([res.body.combinations, res.body.runs_total]).toEqual([4, 10]);
    const done = await finished("sw-wf", res.body.id);
    expect(done.folds!.map((f) => f.status)).toEqual(["done", "done"]);
    for (const f of done.folds!) {
      const inSample = done.results!.filter((r) => r.fold === f.fold && !r.out_of_sample);
      expect(inSample).toHaveLength(4);
      const best = [...inSample].sort((a, b) => b.metrics!.sharpe! - a.metrics!.sharpe!)[0]!;
      expect(f.chosen_parameters).toEqual(best.parameters);
      expect(f.in_sample_metric).toBeCloseTo(best.metrics!.sharpe!, 9);
      const oos = done.results!.find((r) => r.fold === f.fold && r.out_of_sample)!;
      expect(oos.deployment_id).toBe(f.out_of_sample_deployment_id);
      expect(oos.parameters).toEqual(best.parameters);
    }
    // Fold 2's in-sample window starts a segment after fold 1's and ends where its test ends.
    expect(done.folds![1]!.in_sample_end).toBe(done.folds![0]!.out_of_sample_end);
    expect(done.walk_forward!.folds_done).toBe(2);
    // Every in-sample and out-of-sample run is a trial: N counts them all.
    expect((await trials("sw-wf")).trial_count).toBe(10);
  }, 180_000);

  it("cancel: what has not run ends halted and records no trial", async () => {
    const res = await call(p.url, "POST", "/bots/sw-cancel/sweeps", {
      request_key: "c",
      parameters: [{ name: "fast", min: 2, max: 30, step: 1 }],
      ...range(20_000),
    });
    expect(res.status).toBe(202);
    const cancelled = await call(p.url, "POST", `/bots/sw-cancel/sweeps/${res.body.id}/cancel`, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe("cancelled");
    expect(cancelled.body.runs_pending ?? 0).toBe(0);
    await new Promise((r) => setTimeout(r, 1500));
    const after = await sweepOf("sw-cancel", res.body.id);
    const succeeded = after.runs_succeeded ?? 0;
    expect(succeeded).toBeLessThan(29);
    expect((await trials("sw-cancel")).trial_count).toBe(succeeded);
  }, 60_000);
});
