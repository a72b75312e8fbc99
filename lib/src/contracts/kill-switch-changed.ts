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

interface KillSwitchHub {
  subscription: BusSubscription;
  byKey: Map<string, Set<(e: KillSwitchChanged) => void>>;
}

// One subscription per bus (per process), however many runners watch: each broadcast is decoded
// once and handed to the runners watching its key, not decoded by every runner.
const hubs = new WeakMap<EventBus, KillSwitchHub>();

/**
 * Hears the KillSwitchChanged broadcasts of these keys through the process's one subscription.
 * `stop` leaves; the last to leave closes the subscription.
 */
export function listenKillSwitchKeys(
  bus: EventBus,
  keys: readonly string[],
  handler: (e: KillSwitchChanged) => void,
): { stop(): Promise<void> } {
  let hub = hubs.get(bus);
  if (!hub) {
    const byKey: KillSwitchHub["byKey"] = new Map();
    const subscription = listenKillSwitchChanged(bus, (e) => {
      for (const h of byKey.get(e.key) ?? []) h(e);
    });
    hub = { subscription, byKey };
    hubs.set(bus, hub);
  }
  const joined = hub;
  for (const key of keys) {
    let handlers = joined.byKey.get(key);
    if (!handlers) joined.byKey.set(key, (handlers = new Set()));
    handlers.add(handler);
  }
  let stopped = false;
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const key of keys) {
        const handlers = joined.byKey.get(key);
        handlers?.delete(handler);
        if (handlers?.size === 0) joined.byKey.delete(key);
      }
      if (joined.byKey.size === 0 && hubs.get(bus) === joined) {
        hubs.delete(bus);
        await joined.subscription.stop();
      }
    },
  };
}
