import {
  KillSwitchChangedSchema,
  type KillSwitchChanged,
} from "@svc/gen/svc/events/v1/events_pb.js";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { BusSubscription, EventBus } from "../bus/index.js";
import { currentTraceparent } from "../telemetry/trace-context.js";
import { broadcastMessage, listenMessage } from "./broadcast.js";
import { killSwitchMode, type KillSwitchModeName } from "./kill-switch-keys.js";

/**
 * Tells every runner that a kill-switch key was engaged or released (published by the
 * killswitch service). Never throws: the key stays the truth the runners poll.
 *
 * @example await publishKillSwitchChanged(bus, { key, engaged: true, mode: "flatten", reason });
 */
export function publishKillSwitchChanged(
  bus: EventBus,
  e: { key: string; engaged: boolean; mode?: KillSwitchModeName; reason: string },
): Promise<void> {
  return broadcastMessage(bus, KillSwitchChangedSchema, {
    key: e.key,
    engaged: e.engaged,
    mode: e.mode ? killSwitchMode(e.mode) : undefined,
    reason: e.reason,
    sentAt: timestampFromMs(Date.now()),
    traceparent: currentTraceparent(),
  });
}

/** Hears every KillSwitchChanged (read by the bots runner's watcher). */
export function listenKillSwitchChanged(
  bus: EventBus,
  handler: (e: KillSwitchChanged) => void,
): BusSubscription {
  return listenMessage(bus, KillSwitchChangedSchema, handler);
}

/** One listener's place on one key: `index` is that key's position in the keys it listens to. */
interface KeyListener {
  handler: (e: KillSwitchChanged, index: number) => void;
  index: number;
}

/** One key as this process's subscription hears it. */
interface HeardKey {
  listeners: Set<KeyListener>;
  /** The listeners as an array, made on the first broadcast after a change. */
  list: KeyListener[] | null;
  /** When (performance.now()) the last broadcast engaging this key reached the process. */
  engagedAt: number;
}

interface KillSwitchHub {
  subscription: BusSubscription;
  byKey: Map<string, HeardKey>;
}

// One subscription per bus (per process), however many runners watch: each broadcast is decoded
// once and handed to the runners watching its key, not decoded by every runner.
const hubs = new WeakMap<EventBus, KillSwitchHub>();

/**
 * Hears the KillSwitchChanged broadcasts of these keys through the process's one subscription;
 * the handler gets the position in `keys` of the key the broadcast is about. Every listener of a
 * key gets the same message object: a handler only reads it. `stop` leaves (a listener that
 * leaves while a broadcast is being handed out may still hear that one); the last to leave
 * closes the subscription.
 *
 * `engagedSince(t)` is the gate a runner asks before each bar: when (performance.now()) a
 * broadcast engaging one of these keys reached the process after `t`, or NaN. It is set once per
 * broadcast for every listener of the key, before the fan-out: the cost of stopping a process's
 * runners does not grow with their number.
 */
export function listenKillSwitchKeys(
  bus: EventBus,
  keys: readonly string[],
  handler: (e: KillSwitchChanged, index: number) => void,
): { stop(): Promise<void>; engagedSince(t: number): number } {
  let hub = hubs.get(bus);
  if (!hub) {
    const byKey: KillSwitchHub["byKey"] = new Map();
    const subscription = listenKillSwitchChanged(bus, (e) => {
      const on = byKey.get(e.key);
      if (!on) return;
      // Before any listener is called: a runner that asks the gate below stops trading from
      // this instant, however long the fan-out to the thousands of listeners after it takes.
      if (e.engaged) on.engagedAt = performance.now();
      // Thousands of runners of a process hear one broadcast: walk an array, not the set.
      const list = (on.list ??= [...on.listeners]);
      // One listener that throws must not keep the runners after it from halting: every one
      // hears the broadcast, then the first failure goes on as it would have.
      let failure: { err: unknown } | undefined;
      for (let i = 0; i < list.length; i++) {
        try {
          list[i]!.handler(e, list[i]!.index);
        } catch (err) {
          failure ??= { err };
        }
      }
      if (failure) throw failure.err;
    });
    hub = { subscription, byKey };
    hubs.set(bus, hub);
  }
  const joined = hub;
  const mine = keys.map((key, index) => ({ key, listener: { handler, index } }));
  // A key's entry lives as long as it has a listener, so these stay the ones broadcasts update.
  const heard: HeardKey[] = [];
  for (const { key, listener } of mine) {
    let on = joined.byKey.get(key);
    if (!on)
      joined.byKey.set(key, (on = { listeners: new Set(), list: null, engagedAt: -Infinity }));
    on.listeners.add(listener);
    on.list = null;
    heard.push(on);
  }
  let stopped = false;
  return {
    engagedSince(t: number): number {
      let at = NaN;
      for (let i = 0; i < heard.length; i++) {
        const engagedAt = heard[i]!.engagedAt;
        if (engagedAt > t && !(engagedAt >= at)) at = engagedAt;
      }
      return at;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const { key, listener } of mine) {
        const on = joined.byKey.get(key);
        if (!on) continue;
        on.listeners.delete(listener);
        on.list = null;
        if (on.listeners.size === 0) joined.byKey.delete(key);
      }
      if (joined.byKey.size === 0 && hubs.get(bus) === joined) {
        hubs.delete(bus);
        await joined.subscription.stop();
      }
    },
  };
}
