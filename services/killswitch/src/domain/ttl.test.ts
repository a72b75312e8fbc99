import { describe, expect, it } from "vitest";
import { ttlSeconds } from "./ttl.js";

describe("kill-switch TTLs", () => {
  it("parses TTLs and refuses malformed or zero ones", () => {
    expect(ttlSeconds("4h")).toBe(14_400);
    expect(ttlSeconds("1h30m")).toBe(5_400);
    expect(ttlSeconds("90s")).toBe(90);
    expect(ttlSeconds("5x")).toBeNull();
    expect(ttlSeconds("-1h")).toBeNull();
    expect(ttlSeconds("0m")).toBeNull();
  });
});
