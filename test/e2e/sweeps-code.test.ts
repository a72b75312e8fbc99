import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { createCodeBot } from "../support/strategy-code.js";
import { eventually } from "../support/until.js";

// A sweep of strategy code: the parameters and ranges are those its `param` declarations give
// (read from the bundle in the sandbox), and each combination runs sandboxed as a trial.
describe("sweeps of strategy code (real Postgres)", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("postgres");
    await createCodeBot(p.url, "Code Sweep");
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
  }, 60_000);

  it("refuses a value outside a declared range, naming it", async () => {
    const res = await call(p.url, "POST", "/bots/code-sweep/sweeps", {
      request_key: "out",
      parameters: [{ name: "weight", values: [0.5, 1.5] }],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe("weight: 1.5 is above its declared maximum 1");
    const unknown = await call(p.url, "POST", "/bots/code-sweep/sweeps", {
      request_key: "unknown",
      parameters: [{ name: "fast_len", values: [5] }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain("it declares fast, slow, weight");
  }, 60_000);

  it("runs each combination in the sandbox, a trial with the combination's parameters", async () => {
    const res = await call(p.url, "POST", "/bots/code-sweep/sweeps", {
      request_key: "grid",
      parameters: [
        { name: "fast", values: [5, 10] },
        { name: "weight", min: 0.5, max: 1, step: 0.5 },
      ],
      data_source: "csv:sample-btc-usd-1d",
    });
    expect(res.status).toBe(202);
    expect(res.body.combinations).toBe(4);
    const done = await eventually(
      "the sweep ends",
      async () => (await call(p.url, "GET", `/bots/code-sweep/sweeps/${res.body.id}`)).body,
      (s) => s.status === "done",
      120_000,
    );
    expect(done.runs_succeeded).toBe(4);
    const params = done.results.map((r: { parameters: Record<string, number> }) => r.parameters);
    expect(params).toEqual(
      expect.arrayContaining([
        { fast: 5, slow: 30, weight: 0.5 },
        { fast: 5, slow: 30, weight: 1 },
        { fast: 10, slow: 30, weight: 0.5 },
        { fast: 10, slow: 30, weight: 1 },
      ]),
    );
    // Half the weight, the same signals: the same trades, on positions half the size.
    const of = (fast: number, weight: number) =>
      done.results.find(
        (r: { parameters: Record<string, number> }) =>
          r.parameters.fast === fast && r.parameters.weight === weight,
      ).metrics;
    expect(of(5, 0.5).trades).toBe(of(5, 1).trades);
    expect(of(5, 0.5).max_drawdown).toBeLessThan(of(5, 1).max_drawdown * 0.75);
    const trials = await call(p.url, "GET", "/bots/code-sweep/trials");
    expect(trials.body.trial_count).toBe(4);
  }, 180_000);
});
