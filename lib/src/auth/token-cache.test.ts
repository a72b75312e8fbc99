import { describe, expect, it } from "vitest";
import { createTokenCache } from "./token-cache.js";

describe("createTokenCache", () => {
  it("forgets an entry at its expiry", () => {
    const cache = createTokenCache<string>(10);
    cache.set("t", "p", 1_000);
    expect(cache.get("t", 999)).toBe("p");
    expect(cache.get("t", 1_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it("evicts the oldest entry beyond its size, and stores nothing at size 0", () => {
    const cache = createTokenCache<number>(2);
    cache.set("a", 1, Infinity);
    cache.set("b", 2, Infinity);
    cache.set("c", 3, Infinity);
    expect([cache.get("a"), cache.get("b"), cache.get("c")]).toEqual([undefined, 2, 3]);
    const off = createTokenCache<number>(0);
    off.set("a", 1, Infinity);
    expect(off.get("a")).toBeUndefined();
  });
});
