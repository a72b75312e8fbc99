import { describe, expect, it } from "vitest";
import { foldWindows, planSweep, SweepInputError, type SweepPlanInput } from "./sweep-plan.js";

const ma: Pick<SweepPlanInput, "declared" | "base" | "check" | "bound" | "samples" | "seed"> = {
  declared: {
    fast: { type: "int", min: 1 },
    slow: { type: "int", min: 2 },
    allow_short: { type: "boolean" },
  },
  base: { fast: 10, slow: 30, allow_short: false },
  check: (p) => ((p.slow as number) <= (p.fast as number) ? "slow must be above fast" : null),
  bound: "SVC_SWEEP_MAX_COMBINATIONS",
  samples: 0,
  seed: 0,
};

const refused = (input: SweepPlanInput): SweepInputError => {
  try {
    planSweep(input);
  } catch (err) {
    if (err instanceof SweepInputError) return err;
    throw err;
  }
  throw new Error("the plan was accepted");
};

describe("a sweep's plan", () => {
  it("a grid is the product of values and ranges, the version's other values kept, rule breakers skipped", () => {
    const plan = planSweep({
      ...ma,
      mode: "grid",
      maxCombinations: 100,
      parameters: [
        { name: "fast", values: [5, 20] },
        { name: "slow", values: [], min: 10, max: 30, step: 10 },
      ],
    });
    expect(plan.combinations).toEqual([
      { fast: 5, slow: 10, allow_short: false },
      { fast: 5, slow: 20, allow_short: false },
      { fast: 5, slow: 30, allow_short: false },
      { fast: 20, slow: 30, allow_short: false },
    ]);
    expect(plan.skipped).toBe(2);
  });

  it("a float range keeps the decimals a person wrote and reaches its max", () => {
    const plan = planSweep({
      mode: "grid",
      maxCombinations: 100,
      declared: { k: { type: "number", min: 0 } },
      base: { k: 1 },
      bound: "b",
      samples: 0,
      seed: 0,
      parameters: [{ name: "k", values: [], min: 0.1, max: 0.3, step: 0.1 }],
    });
    expect(plan.combinations.map((c) => c.k)).toEqual([0.1, 0.2, 0.3]);
  });

  it("past the bound: a 400 naming the size and the bound, counted before anything is expanded", () => {
    const err = refused({
      ...ma,
      mode: "grid",
      maxCombinations: 1000,
      parameters: [
        { name: "fast", values: [], min: 1, max: 1_000_000_000, step: 1 },
        { name: "slow", values: [], min: 2, max: 1_000_000_000, step: 1 },
      ],
    });
    expect(err.code).toBe("sweep_too_large");
    expect(err.message).toContain("the grid has 999,999,999,000,000,000 combinations");
    expect(err.message).toContain("at most 1,000 (SVC_SWEEP_MAX_COMBINATIONS)");
  });

  it("values outside a declaration are refused naming parameter, value and field", () => {
    const base = { ...ma, mode: "grid" as const, maxCombinations: 100 };
    expect(refused({ ...base, parameters: [{ name: "fast", values: [0, 5] }] })).toMatchObject({
      message: "fast: 0 is below its declared minimum 1",
      field: "parameters[0].values[0]",
    });
    expect(refused({ ...base, parameters: [{ name: "fast", values: [2.5] }] }).message).toBe(
      "fast: 2.5 is not a whole number",
    );
    expect(refused({ ...base, parameters: [{ name: "fast", values: ["5"] }] }).message).toContain(
      "is not a finite number",
    );
    expect(refused({ ...base, parameters: [{ name: "fast", values: [1e400] }] }).message).toContain(
      "is not a finite number",
    );
    expect(refused({ ...base, parameters: [{ name: "speed", values: [1] }] }).message).toContain(
      "is not a parameter of this strategy; it declares fast, slow, allow_short",
    );
    // A name that is a property of every object is not a declaration.
    expect(refused({ ...base, parameters: [{ name: "constructor", values: [1] }] }).field).toBe(
      "parameters[0].name",
    );
    expect(
      refused({ ...base, parameters: [{ name: "allow_short", values: [], min: 0, max: 1 }] })
        .message,
    ).toContain("give its values, a range is for numbers");
    expect(
      refused({
        ...base,
        parameters: [
          { name: "fast", values: [1] },
          { name: "fast", values: [2] },
        ],
      }).message,
    ).toContain("named twice");
    expect(
      refused({
        mode: "grid",
        maxCombinations: 10,
        declared: { k: { type: "number", min: 0, max: 1 } },
        base: { k: 0.5 },
        bound: "b",
        samples: 0,
        seed: 0,
        parameters: [{ name: "k", values: [], min: 0, max: 2, step: 0.5 }],
      }).message,
    ).toBe("k: 2 is above its declared maximum 1");
  });

  it("a random search with a seed draws the same distinct combinations every time", () => {
    const input: SweepPlanInput = {
      ...ma,
      mode: "random",
      maxCombinations: 1000,
      samples: 50,
      seed: 42,
      parameters: [
        { name: "fast", values: [], min: 2, max: 50 },
        { name: "slow", values: [], min: 20, max: 200 },
      ],
    };
    const a = planSweep(input);
    expect(a.combinations).toHaveLength(50);
    expect(planSweep(input)).toEqual(a);
    expect(new Set(a.combinations.map((c) => `${c.fast}/${c.slow}`)).size).toBe(50);
    for (const c of a.combinations) {
      expect(c.slow as number).toBeGreaterThan(c.fast as number);
      expect(Number.isInteger(c.fast)).toBe(true);
    }
    expect(planSweep({ ...input, seed: 43 }).combinations).not.toEqual(a.combinations);
    // A space smaller than the samples asked gives what it holds.
    const small = planSweep({
      ...input,
      parameters: [{ name: "fast", values: [3, 4] }],
    });
    expect(small.combinations).toHaveLength(2);
  });

  it("walk-forward folds roll over the range, the last one ending at its end", () => {
    expect(foldWindows(0, 1000, 3, 2)).toEqual([
      { isStart: 0, isEnd: 400, oosEnd: 600 },
      { isStart: 200, isEnd: 600, oosEnd: 800 },
      { isStart: 400, isEnd: 800, oosEnd: 1000 },
    ]);
  });
});
