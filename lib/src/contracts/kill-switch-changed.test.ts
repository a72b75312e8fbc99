import { describe, expect, it } from "vitest";
import { createMemoryBus } from "../bus/index.js";
import { listenKillSwitchKeys, publishKillSwitchChanged } from "./kill-switch-changed.js";

describe("the kill-switch broadcast's fan-out in a process", () => {
  it("reaches every runner of a key even when one of them throws on it", async () => {
    const bus = createMemoryBus();
    const key = "svc:bots:killswitch:platform:platform";
    const heard: string[] = [];
    const listeners = ["first", "broken", "last"].map((name) =>
      listenKillSwitchKeys(bus, [key], (e) => {
        if (name === "broken") throw new Error("a runner's halt failed");
        heard.push(`${name}:${e.reason}`);
      }),
    );
    try {
      await publishKillSwitchChanged(bus, { key, engaged: true, mode: "cancel", reason: "drill" });
      expect(heard).toEqual(["first:drill", "last:drill"]);
    } finally {
      for (const l of listeners) await l.stop();
      await bus.close();
    }
  });
});
