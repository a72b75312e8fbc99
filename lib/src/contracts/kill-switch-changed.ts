import {
  KillSwitchChangedSchema,
  type KillSwitchChanged,
} from "@svc/gen/svc/events/v1/events_pb.js";
import type { BusSubscription, EventBus } from "../bus/index.js";
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
  });
}

/** Hears every KillSwitchChanged (read by the bots runner's watcher). */
export function listenKillSwitchChanged(
  bus: EventBus,
  handler: (e: KillSwitchChanged) => void,
): BusSubscription {
  return listenMessage(bus, KillSwitchChangedSchema, handler);
}
