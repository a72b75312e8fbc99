import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  BotPhase,
  BotPhaseChangedSchema,
  type BotPhaseChanged,
} from "@svc/gen/svc/events/v1/events_pb.js";
import type { BusSubscription, EventBus } from "../bus/index.js";
import { broadcastMessage, listenMessage } from "./broadcast.js";

/** The phases a runner announces, as the bots runtime names them. */
export type BotPhaseName = "Running" | "Draining" | "Stopped";

const PHASES: Record<BotPhaseName, BotPhase> = {
  Running: BotPhase.RUNNING,
  Draining: BotPhase.DRAINING,
  Stopped: BotPhase.STOPPED,
};

/**
 * Announces a runner's phase change (published by the bots runtime, read by kill-switch drills).
 * Never throws: bot_events stays the record.
 *
 * @example await publishBotPhaseChanged(bus, { taskId, botId, phase: "Stopped" });
 */
export function publishBotPhaseChanged(
  bus: EventBus,
  e: { taskId: string; botId: string; phase: BotPhaseName; atMs?: number },
): Promise<void> {
  return broadcastMessage(bus, BotPhaseChangedSchema, {
    taskId: e.taskId,
    botId: e.botId,
    phase: PHASES[e.phase],
    at: timestampFromMs(e.atMs ?? Date.now()),
  });
}

/** Hears every BotPhaseChanged. */
export function listenBotPhaseChanged(
  bus: EventBus,
  handler: (e: BotPhaseChanged) => void,
): BusSubscription {
  return listenMessage(bus, BotPhaseChangedSchema, handler);
}
