import { describe, expect, it } from "vitest";
import { keyOf, parseKey, parseKeyValue, ttlSeconds } from "./kill-switch-keys.js";

describe("kill-switch keys", () => {
  it("names the spec's keys", () => {
    expect(keyOf("platform", "platform")).toBe("svc:bots:killswitch:platform:platform");
    expect(parseKey("svc:bots:killswitch:fleet:majors")).toEqual({
      scope: "fleet",
      target: "majors",
    });
    expect(parseKey("svc:other")).toBeNull();
  });
  it("reads any non-empty value as engaged, JSON or hand-set text", () => {
    expect(parseKeyValue('{"mode":"flatten","reason":"drill"}')).toEqual({
      mode: "flatten",
      reason: "drill",
      name: undefined,
      by: undefined,
    });
    expect(parseKeyValue("1")).toEqual({ mode: "cancel", reason: "1" });
    expect(parseKeyValue("halt now")).toEqual({ mode: "cancel", reason: "halt now" });
  });
  it("parses TTLs and refuses malformed or zero ones", () => {
    expect(ttlSeconds("4h")).toBe(14_400);
    expect(ttlSeconds("1h30m")).toBe(5_400);
    expect(ttlSeconds("90s")).toBe(90);
    expect(ttlSeconds("5x")).toBeNull();
    expect(ttlSeconds("-1h")).toBeNull();
    expect(ttlSeconds("0m")).toBeNull();
  });
});
