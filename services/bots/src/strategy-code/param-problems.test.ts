import { describe, expect, it } from "vitest";
import { paramProblem } from "./param-problems.js";

const declared = {
  fast: { type: "int", default: 10, min: 2, max: 200 },
  weight: { type: "number", default: 1, min: 0, max: 1 },
  floor: { type: "number", default: 0, min: -5 },
  short: { type: "boolean", default: false },
  side: { type: "enum", default: "long", values: ["long", "short"] },
};

describe("strategy parameters held to the code's declarations", () => {
  it("takes values inside their declarations, edges included", () => {
    expect(paramProblem(declared, {})).toBeUndefined();
    expect(
      paramProblem(declared, { fast: 200, weight: 0, floor: 1e9, short: true, side: "short" }),
    ).toBeUndefined();
  });

  it.each([
    [{ fast: 1 }, "strategy.parameters.fast is 1: it is declared an integer from 2 to 200"],
    [{ fast: 2.5 }, "strategy.parameters.fast is 2.5: it is declared an integer from 2 to 200"],
    [{ fast: "NaN" }, 'strategy.parameters.fast is "NaN": it is declared an integer from 2 to 200'],
    [{ fast: null }, "strategy.parameters.fast is null: it is declared an integer from 2 to 200"],
    [{ weight: Number.MAX_VALUE }, "it is declared a number from 0 to 1"],
    [{ weight: Infinity }, "it is declared a number from 0 to 1"],
    [{ floor: -6 }, "strategy.parameters.floor is -6: it is declared a number of at least -5"],
    [{ short: "true" }, 'strategy.parameters.short is "true": it is declared a boolean'],
    [{ side: "Long" }, 'strategy.parameters.side is "Long": it is declared one of "long", "short"'],
    [{ side: "lοng" }, "it is declared one of"], // a Greek omicron
    [{ "fast\u0000": 3 }, '"fast\\u0000" is not a parameter of this strategy'],
    [{ constructor: 3 }, '"constructor" is not a parameter of this strategy'],
  ])("refuses %j", (given, message) => {
    expect(paramProblem(declared, given as Record<string, unknown>)?.message).toContain(message);
  });

  it("names the field and gives the range in the details", () => {
    expect(paramProblem(declared, { fast: 500 })).toMatchObject({
      field: "strategy.parameters.fast",
      details: { parameter: "fast", type: "int", min: 2, max: 200 },
    });
  });

  it("cuts a huge value short in the message", () => {
    const message = paramProblem(declared, { side: "x".repeat(100_000) })!.message;
    expect(message.length).toBeLessThan(300);
  });
});
