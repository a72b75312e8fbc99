import { describe, expect, it } from "vitest";
import { switchChange, type AppliedSwitch } from "./switch-change.js";

const platform: AppliedSwitch = {
  scope: "platform",
  target: "platform",
  mode: "cancel",
  reason: "outage",
  ttl: "",
};

describe("what an apply does to the switch of that name", () => {
  it("names each of scope and target that would move it", () => {
    expect(switchChange(platform, { ...platform, scope: "bot", target: "b1" })).toEqual({
      kind: "moved",
      differs: ["scope", "target"],
      from: { scope: "platform", target: "platform" },
    });
    const fleet = { ...platform, scope: "fleet" as const, target: "alpha" };
    expect(switchChange(fleet, { ...fleet, target: "beta" })).toMatchObject({
      kind: "moved",
      differs: ["target"],
    });
  });

  it("changes mode, reason and TTL in place, saying from what to what; nothing when applied again", () => {
    expect(switchChange(platform, { ...platform, mode: "flatten", ttl: "4h" })).toEqual({
      kind: "in_place",
      changed: { mode: { from: "cancel", to: "flatten" }, ttl: { from: "", to: "4h" } },
    });
    expect(switchChange(platform, { ...platform })).toEqual({ kind: "in_place", changed: {} });
    expect(switchChange(undefined, platform)).toEqual({ kind: "new" });
  });
});
