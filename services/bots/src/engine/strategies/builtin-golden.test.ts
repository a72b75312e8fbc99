import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { BUILT_IN_CASES, digest, runCase } from "./builtin-cases.fixture.js";
import { resolveStrategy } from "./registry.js";

// Recorded from the hand-written families before their rewrite on the SDK (write-builtin-golden.ts).
const golden = JSON.parse(
  fs.readFileSync(new URL("./builtin-golden.json", import.meta.url), "utf8"),
) as {
  cases: { name: string; bars: number; trades: number; finalEquity: number; digest: string }[];
};

describe("the built-in families give the results recorded before their rewrite, to the bit", () => {
  it("records every case", () => {
    expect(golden.cases.map((c) => c.name)).toEqual(BUILT_IN_CASES.map((c) => c.name));
  });
  it.each(BUILT_IN_CASES.map((c) => [c.name, c] as const))("%s", async (name, c) => {
    const want = golden.cases.find((g) => g.name === name)!;
    const record = await runCase(c, (p) => resolveStrategy(c.family, p).family.create(p));
    expect({
      bars: record.metrics.bars,
      trades: record.metrics.trades,
      finalEquity: record.metrics.finalEquity,
    }).toEqual({ bars: want.bars, trades: want.trades, finalEquity: want.finalEquity });
    expect(digest(record)).toBe(want.digest);
  });
});
