import { describe, expect, it } from "vitest";
import { createMemoryBus } from "@svc/lib/bus";
import { publishKillSwitchChanged } from "@svc/lib/contracts";
import { createMemoryStore, type KeyValueStore } from "@svc/lib/kv";
import { metricsRegistry } from "@svc/lib/telemetry";
import { eventually } from "../../../../test/support/until.js";
import { watchKillSwitch } from "./kill-switch-watcher.js";

const KEY = "svc:bots:killswitch:bot:b1";

/** A store that counts the watcher's polls (one read of its keys each), so a test waits on polls that happened, not on time. */
function countingStore(): KeyValueStore & { afterPolls(n: number): Promise<void> } {
  const store = createMemoryStore();
  let reads = 0;
  const waiters: Array<{ at: number; done: () => void }> = [];
  return {
    ...store,
    async getMany(keys: string[]) {
      reads++;
      for (const w of waiters.splice(0).filter((w) => (w.at <= reads ? (w.done(), false) : true)))
        waiters.push(w);
      return store.getMany(keys);
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

  it("counts its failed polls where an operator sees them, though the bus being up keeps it from going blind", async () => {
    const failures = async () =>
      (await metricsRegistry.getSingleMetric("svc_killswitch_poll_failures_total")!.get()).values[0]
        ?.value ?? 0;
    const before = await failures();
    let failed = 0;
    const broken: KeyValueStore = {
      ...createMemoryStore(),
      getMany: () => (failed++, Promise.reject(new Error("the store is gone"))),
    };
    const blindness: boolean[] = [];
    const w = watchKillSwitch({
      kv: broken,
      bus: createMemoryBus(),
      keys: [KEY],
      pollMs: 5,
      onEngage: () => {},
      onRelease: () => {},
      onBlind: (b) => blindness.push(b),
    });
    try {
      await eventually(
        "four polls fail",
        () => failed,
        (n) => n >= 4,
      );
      expect(blindness).toEqual([]);
      expect((await failures()) - before).toBeGreaterThanOrEqual(3);
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

describe("many watchers in one process", () => {
  it("share one bus subscription, each hearing only its own keys, and the last to stop closes it", async () => {
    const bus = createMemoryBus();
    let subscriptions = 0;
    let open = 0;
    const counted: typeof bus = {
      ...bus,
      listen(subject, handler) {
        subscriptions++;
        open++;
        const sub = bus.listen(subject, handler);
        return { ...sub, stop: async () => (open--, sub.stop()) };
      },
    };
    const kv = createMemoryStore();
    const engaged: string[] = [];
    const watchers = ["a", "b", "c"].map((bot) =>
      watchKillSwitch({
        kv,
        bus: counted,
        keys: [`svc:bots:killswitch:bot:${bot}`],
        pollMs: 60_000,
        onEngage: () => engaged.push(bot),
        onRelease: () => {},
        onBlind: () => {},
      }),
    );
    await publishKillSwitchChanged(counted, {
      key: "svc:bots:killswitch:bot:b",
      engaged: true,
      mode: "freeze",
      reason: "only b",
    });
    await eventually(
      "b hears its switch",
      () => engaged.length,
      (n) => n > 0,
    );
    expect(engaged).toEqual(["b"]);
    expect(subscriptions).toBe(1);
    for (const w of watchers) await w.stop();
    expect(open).toBe(0);
  });

  it("hold each runner's engagement by its own keys: a release of one key leaves another engaged", async () => {
    const bus = createMemoryBus();
    const kv = createMemoryStore();
    const keysOf = (bot: string) => [
      "svc:bots:killswitch:platform:platform",
      "svc:bots:killswitch:fleet:f",
      `svc:bots:killswitch:bot:${bot}`,
    ];
    const events: string[] = [];
    const watchers = ["a", "b"].map((bot) =>
      watchKillSwitch({
        kv,
        bus,
        keys: keysOf(bot),
        pollMs: 60_000,
        onEngage: (e) => events.push(`${bot} engage ${e.key} ${e.mode} ${e.reason}`),
        onRelease: () => events.push(`${bot} release`),
        onBlind: () => {},
      }),
    );
    const say = (key: string, engaged: boolean, reason = "") =>
      publishKillSwitchChanged(bus, { key, engaged, mode: "flatten", reason });
    try {
      await say("svc:bots:killswitch:bot:a", true, "a only");
      await say("svc:bots:killswitch:fleet:f", true, "fleet");
      await say("svc:bots:killswitch:bot:a", false);
      expect(watchers.map((w) => w.engaged()?.key)).toEqual([
        "svc:bots:killswitch:fleet:f",
        "svc:bots:killswitch:fleet:f",
      ]);
      await say("svc:bots:killswitch:fleet:f", false);
      expect(events).toEqual([
        "a engage svc:bots:killswitch:bot:a flatten a only",
        "b engage svc:bots:killswitch:fleet:f flatten fleet",
        "a release",
        "b release",
      ]);

      // A stopped watcher hears nothing more.
      await watchers[1]!.stop();
      await say("svc:bots:killswitch:platform:platform", true, "all");
      expect(events.slice(4)).toEqual([
        "a engage svc:bots:killswitch:platform:platform flatten all",
      ]);
    } finally {
      for (const w of watchers) await w.stop();
    }
  });
});
