import { describe, expect, it } from "vitest";
import type { PreTradeContext } from "./pre-trade.js";
import { onlyReduces, reduceOnlyWhile } from "./reduce-only.js";

const at = (position: number, accepted = 0): PreTradeContext => ({
  symbol: "BTC-USD",
  price: 100,
  equity: 10_000,
  cash: 10_000,
  position,
  accepted,
  time: 0,
  reference: NaN,
});

describe("reduce-only", () => {
  it("lets closes and partial reductions through, in either direction", () => {
    expect(onlyReduces({ side: "sell", units: 10, closes: true }, at(10))).toBe(true);
    expect(onlyReduces({ side: "sell", units: 4, closes: false }, at(10))).toBe(true);
    expect(onlyReduces({ side: "buy", units: 10, closes: true }, at(-10))).toBe(true);
    expect(onlyReduces({ side: "sell", units: 10 * (1 + 1e-15), closes: true }, at(10))).toBe(true);
  });

  it("refuses openings, additions and a sell past flat", () => {
    expect(onlyReduces({ side: "buy", units: 1, closes: false }, at(0))).toBe(false);
    expect(onlyReduces({ side: "buy", units: 1, closes: false }, at(10))).toBe(false);
    expect(onlyReduces({ side: "sell", units: 11, closes: false }, at(10))).toBe(false);
    // After a flip's close was accepted, the opening that follows it adds exposure.
    expect(onlyReduces({ side: "sell", units: 5, closes: false }, at(10, -10))).toBe(false);
  });

  it("checks only while a reason is named, and names it in the refusal", () => {
    const lapse: { why?: string } = {};
    const check = reduceOnlyWhile(() => lapse.why);
    const opening = { side: "buy" as const, units: 1, closes: false };
    expect(check.check(opening, at(0))).toEqual({ accept: true });
    lapse.why = "license expired";
    expect(check.check(opening, at(0))).toEqual({
      accept: false,
      reason: "reduce-only: license expired",
    });
    expect(check.check({ side: "sell", units: 3, closes: true }, at(3))).toEqual({ accept: true });
  });
});
