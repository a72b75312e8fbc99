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

interface KillSwitchHub {
  subscription: BusSubscription;
  /** Per key, its listeners, and an array of them made on the first broadcast after a change. */
  byKey: Map<string, { listeners: Set<KeyListener>; list: KeyListener[] | null }>;
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
 */
export function listenKillSwitchKeys(
  bus: EventBus,
  keys: readonly string[],
  handler: (e: KillSwitchChanged, index: number) => void,
): { stop(): Promise<void> } {
  let hub = hubs.get(bus);
  if (!hub) {
    const byKey: KillSwitchHub["byKey"] = new Map();
    const subscription = listenKillSwitchChanged(bus, (e) => {
      const on = byKey.get(e.key);
      if (!on) return;
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
  for (const { key, listener } of mine) {
    let on = joined.byKey.get(key);
    if (!on) joined.byKey.set(key, (on = { listeners: new Set(), list: null }));
    on.listeners.add(listener);
    on.list = null;
  }
  let stopped = false;
  return {
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
