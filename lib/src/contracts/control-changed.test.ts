import { describe, expect, it } from "vitest";
import { changedSettings } from "./control-changed.js";

describe("what a control change says changed", () => {
  it("holds only the settings that differ, a setting one side lacks being null there", () => {
    expect(
      changedSettings(
        { max_order_units: 5, price_collar_pct: 5, restricted_symbols: ["XYZ"] },
        { max_order_units: 10, price_collar_pct: 5, restricted_symbols: ["XYZ"], credit_limit: 1 },
      ),
    ).toEqual({
      before: { credit_limit: null, max_order_units: 5 },
      after: { credit_limit: 1, max_order_units: 10 },
    });
  });

  it("is nothing when nothing differs, nested values compared whole", () => {
    expect(changedSettings({ s: { a: [1, 2] } }, { s: { a: [1, 2] } })).toBeUndefined();
    expect(changedSettings({ s: { a: [1, 2] } }, { s: { a: [2, 1] } })).toEqual({
      before: { s: { a: [1, 2] } },
      after: { s: { a: [2, 1] } },
    });
  });
});
