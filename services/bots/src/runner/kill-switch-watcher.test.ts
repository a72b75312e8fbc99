import { describe, expect, it } from "vitest";
import { createMemoryBus } from "@svc/lib/bus";
import { publishKillSwitchChanged } from "@svc/lib/contracts";
import { createMemoryStore, type KeyValueStore } from "@svc/lib/kv";
import { watchKillSwitch } from "./kill-switch-watcher.js";

const KEY = "svc:bots:killswitch:bot:b1";

/** A store that counts the watcher's reads, so a test waits on polls that happened, not on time. */
function countingStore(): KeyValueStore & { afterPolls(n: number): Promise<void> } {
  const store = createMemoryStore();
  let reads = 0;
  const waiters: Array<{ at: number; done: () => void }> = [];
  return {
    ...store,
    async get(key: string) {
      reads++;
      for (const w of waiters.splice(0).filter((w) => (w.at <= reads ? (w.done(), false) : true)))
        waiters.push(w);
      return store.get(key);
    },
    afterPolls(n: number) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${n} polls did not happen`)), 2_000);
        waiters.push({ at: reads + n + 1, done: () => (clearTimeout(timer), resolve()) });
      });
    },
  };
}

describe("the kill-switch watcher", () => {
  it("holds a broadcast engagement whose key is not written yet, and releases once the key was seen and is gone", async () => {
    const bus = createMemoryBus();
    const kv = countingStore();
    const events: string[] = [];
    const w = watchKillSwitch({
      kv,
      bus,
      keys: [KEY],
      pollMs: 5,
      onEngage: (e) => events.push(`engage:${e.reason}`),
      onRelease: () => events.push("release"),
      onBlind: () => {},
    });
    try {
      // The service broadcast, then the store hung before the key was written: polls see no key.
      await publishKillSwitchChanged(bus, {
        key: KEY,
        engaged: true,
        mode: "cancel",
        reason: "drill",
      });
      await kv.afterPolls(3);
      expect(w.engaged()?.reason).toBe("drill");
      expect(events).toEqual(["engage:drill"]);

      // The key is written (the service caught up), then deleted by hand: that releases.
      await kv.set(KEY, JSON.stringify({ mode: "cancel", reason: "drill" }));
      await kv.afterPolls(2);
      await kv.delete(KEY);
      await kv.afterPolls(2);
      expect(w.engaged()).toBeNull();
      expect(events).toEqual(["engage:drill", "release"]);
    } finally {
      await w.stop();
    }
  });

  it("releases an unwritten engagement when a broadcast says so", async () => {
    const bus = createMemoryBus();
    const kv = countingStore();
    const w = watchKillSwitch({
      kv,
      bus,
      keys: [KEY],
      pollMs: 5,
      onEngage: () => {},
      onRelease: () => {},
      onBlind: () => {},
    });
    try {
      await publishKillSwitchChanged(bus, { key: KEY, engaged: true, mode: "freeze", reason: "x" });
      await kv.afterPolls(3);
      expect(w.engaged()).not.toBeNull();
      await publishKillSwitchChanged(bus, { key: KEY, engaged: false, reason: "not recorded" });
      expect(w.engaged()).toBeNull();
      await kv.afterPolls(2);
      expect(w.engaged()).toBeNull();
    } finally {
      await w.stop();
    }
  });
});
