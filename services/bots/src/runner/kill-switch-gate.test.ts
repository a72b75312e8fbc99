import { describe, expect, it } from "vitest";
import { createMemoryBus } from "@svc/lib/bus";
import { killSwitchKey, listenKillSwitchKeys, publishKillSwitchChanged } from "@svc/lib/contracts";
import { createMemoryStore } from "@svc/lib/kv";
import { eventually } from "../../../../test/support/until.js";
import { generateBars, resolveStrategy } from "../engine/index.js";
import { BotRunner } from "./bot-runner.js";
import { keysFor, watchKillSwitch, type KillSwitchWatcher } from "./kill-switch-watcher.js";

const PLATFORM = killSwitchKey("platform", "platform");
const bars = generateBars({ seed: 1, count: 5_000 });

/** A runner and its watcher wired as a paper session wires them; `onEngage` is the test's. */
function session(
  deps: { bus: ReturnType<typeof createMemoryBus>; kv: ReturnType<typeof createMemoryStore> },
  slug: string,
  onEngage: (runner: BotRunner) => void,
  sessionWatcher?: KillSwitchWatcher,
) {
  const { family, params } = resolveStrategy("ma_crossover", { fast: 3, slow: 8 });
  let barsSeen = 0;
  const made: { runner?: BotRunner } = {};
  const watcher: KillSwitchWatcher =
    sessionWatcher ??
    watchKillSwitch({
      ...deps,
      keys: keysFor(slug, "gate"),
      pollMs: 60_000,
      onEngage: () => onEngage(made.runner!),
      onRelease: () => {},
      onBlind: () => {},
    });
  const runner = (made.runner = new BotRunner({
    symbol: "X",
    bars,
    startIndex: 0,
    speed: 200,
    strategy: family.create(params),
    costs: { feeBps: 1, slippageBps: 1, positionSize: 1 },
    broker: { cash: 1e5, units: 0 },
    sink: async (events) => {
      barsSeen += events.filter((e) => e.type === "bar_received").length;
    },
    killSwitch: watcher,
  }));
  return { runner, watcher, bars: () => barsSeen };
}

describe("the kill-switch gate", () => {
  it("stops every runner of the process the moment the broadcast is heard, before its own halt is called", async () => {
    const deps = { bus: createMemoryBus(), kv: createMemoryStore() };
    // Heard first: the hub hands a broadcast to its listeners in the order they joined.
    let seenAtBroadcast: { phases: string[]; bars: number[] } | undefined;
    const first = listenKillSwitchKeys(deps.bus, [PLATFORM], (e) => {
      if (!e.engaged) return;
      seenAtBroadcast = {
        phases: sessions.map((s) => s.runner.phase),
        bars: sessions.map((s) => s.bars()),
      };
    });
    // The halt never comes: as when the session's park is chained behind a step that waits on a
    // store that hangs. Only the gate can stop these runners.
    const sessions = Array.from({ length: 20 }, (_, i) => session(deps, `gate-${i}`, () => {}));
    try {
      await eventually(
        "every runner trades",
        () => sessions.map((s) => s.bars()),
        (seen) => seen.every((n) => n >= 3),
      );
      await publishKillSwitchChanged(deps.bus, {
        key: PLATFORM,
        engaged: true,
        mode: "cancel",
        reason: "drill",
      });
      expect(seenAtBroadcast?.phases).toEqual(sessions.map(() => "Draining"));
      const ended = await Promise.all(sessions.map((s) => s.runner.finished()));
      expect(ended).toEqual(sessions.map(() => "stopped"));
      // No bar was started after the broadcast reached the process.
      expect(sessions.map((s) => s.bars())).toEqual(seenAtBroadcast?.bars);
      for (const s of sessions) expect(s.runner.drainingSince).toBeGreaterThan(0);
    } finally {
      await first.stop();
      for (const s of sessions) await s.watcher.stop();
    }
  });

  it("holds a runner built after its watcher heard the broadcast (a session starting while the switch was engaged)", async () => {
    const deps = { bus: createMemoryBus(), kv: createMemoryStore() };
    // The watcher comes first, as a session's does; the broadcast arrives while the session is
    // still starting (an unpark reading its state), before its runner is built. The halt it
    // asks for waits behind that start, so only the gate holds the runner meanwhile.
    const watcher = watchKillSwitch({
      ...deps,
      keys: keysFor("late", "gate"),
      pollMs: 60_000,
      onEngage: () => {},
      onRelease: () => {},
      onBlind: () => {},
    });
    try {
      await publishKillSwitchChanged(deps.bus, {
        key: PLATFORM,
        engaged: true,
        mode: "cancel",
        reason: "drill",
      });
      const built = performance.now();
      const late = session(deps, "late", () => {}, watcher);
      expect(late.runner.phase).toBe("Draining");
      expect(await late.runner.finished()).toBe("stopped");
      expect(late.bars()).toBe(0);
      expect(late.runner.drainingSince).toBeGreaterThanOrEqual(built);
    } finally {
      await watcher.stop();
    }
  });

  it("holds a runner halted later at the broadcast's time, and does not hold a runner started after it", async () => {
    const deps = { bus: createMemoryBus(), kv: createMemoryStore() };
    const before = session(deps, "before", (runner) => void runner.halt("drill"));
    try {
      await eventually("the runner trades", before.bars, (n) => n >= 1);
      const sentAt = performance.now();
      await publishKillSwitchChanged(deps.bus, {
        key: PLATFORM,
        engaged: true,
        mode: "cancel",
        reason: "drill",
      });
      await before.runner.finished();
      expect(before.runner.phase).toBe("Stopped");
      expect(before.runner.drainingSince).toBeGreaterThanOrEqual(sentAt);
      expect(before.runner.drainingSince).toBeLessThanOrEqual(performance.now());

      await publishKillSwitchChanged(deps.bus, {
        key: PLATFORM,
        engaged: false,
        reason: "drill over",
      });
      // A session restarted after the release trades: the broadcast that stopped the one
      // before it is not its gate.
      const after = session(deps, "before", () => {});
      try {
        await eventually("the restarted runner trades", after.bars, (n) => n >= 3);
        expect(after.runner.phase).toBe("Running");
        expect(after.runner.drainingSince).toBeNaN();
      } finally {
        await after.runner.halt("test over");
        await after.watcher.stop();
      }
    } finally {
      await before.watcher.stop();
    }
  });
});
