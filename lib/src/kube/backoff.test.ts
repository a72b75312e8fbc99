import { describe, expect, it } from "vitest";
import { createBackoff } from "./backoff.js";

describe("retry backoff", () => {
  it("doubles from the minimum to the cap, with jitter in the upper half, and starts over after reset", () => {
    const top = createBackoff({ minMs: 100, maxMs: 1_000, random: () => 1 });
    expect(Array.from({ length: 6 }, () => top.next())).toEqual([100, 200, 400, 800, 1000, 1000]);
    top.reset();
    expect(top.next()).toBe(100);
    const bottom = createBackoff({ minMs: 100, maxMs: 1_000, random: () => 0 });
    expect([bottom.next(), bottom.next(), bottom.next()]).toEqual([50, 100, 200]);
  });
});
