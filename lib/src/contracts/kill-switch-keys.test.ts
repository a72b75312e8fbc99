import { describe, expect, it } from "vitest";
import {
  KILL_SWITCH_KEY_PREFIX,
  killSwitchKey,
  killSwitchKeysCovering,
  parseKillSwitchKey,
  readKillSwitchValue,
} from "./kill-switch-keys.js";

describe("the kill-switch key scheme, read from the proto", () => {
  it("names the spec's keys and parses them back", () => {
    expect(killSwitchKey("platform", "platform")).toBe("svc:bots:killswitch:platform:platform");
    expect(killSwitchKey("bot", "eth-1")).toBe("svc:bots:killswitch:bot:eth-1");
    expect(KILL_SWITCH_KEY_PREFIX).toBe("svc:bots:killswitch:");
    expect(parseKillSwitchKey("svc:bots:killswitch:fleet:majors")).toEqual({
      scope: "fleet",
      target: "majors",
    });
    expect(parseKillSwitchKey("svc:bots:killswitch:fleet:")).toBeNull();
    expect(parseKillSwitchKey("svc:other")).toBeNull();
  });
  it("lists the keys covering a bot, most general first", () => {
    expect(killSwitchKeysCovering("eth-1", "majors")).toEqual([
      "svc:bots:killswitch:platform:platform",
      "svc:bots:killswitch:fleet:majors",
      "svc:bots:killswitch:bot:eth-1",
    ]);
    expect(killSwitchKeysCovering("eth-1", null)).toEqual([
      "svc:bots:killswitch:platform:platform",
      "svc:bots:killswitch:bot:eth-1",
    ]);
    expect(killSwitchKeysCovering(undefined, undefined)).toEqual([
      "svc:bots:killswitch:platform:platform",
    ]);
  });
  it("reads any non-empty value as engaged, JSON or hand-set text", () => {
    expect(readKillSwitchValue('{"mode":"flatten","reason":"drill"}')).toEqual({
      mode: "flatten",
      reason: "drill",
      name: undefined,
      by: undefined,
    });
    expect(readKillSwitchValue("1")).toEqual({ mode: "cancel", reason: "1" });
    expect(readKillSwitchValue("halt now")).toEqual({ mode: "cancel", reason: "halt now" });
  });
});
