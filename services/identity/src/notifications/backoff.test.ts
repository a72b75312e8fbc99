import { describe, expect, it } from "vitest";
import { retryDelayMs } from "./backoff.js";

describe("webhook retry backoff", () => {
  const opts = { baseMs: 1_000, maxMs: 60_000 };
  it("doubles per failure, between half and all of the step", () => {
    expect(retryDelayMs(1, opts, () => 0)).toBe(500);
    expect(retryDelayMs(1, opts, () => 1)).toBe(1_000);
    expect(retryDelayMs(3, opts, () => 0)).toBe(2_000);
    expect(retryDelayMs(3, opts, () => 1)).toBe(4_000);
  });
  it("never waits past the cap", () => {
    expect(retryDelayMs(30, opts, () => 1)).toBe(60_000);
  });
});
