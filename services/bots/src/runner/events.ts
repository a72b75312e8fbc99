import type { ExecutionEvent } from "../execution/events.js";

/**
 * What a running bot records, in order, in bot_events: the order path's records (the same a
 * backtest reports) and the session's own. `data` is plain JSON so the history stays readable by
 * people and by other tools.
 */
export type RunnerEvent =
  | {
      type: "session_started";
      data: {
        task_id: string;
        version: number;
        symbol: string;
        initial_cash: number;
        data_source: string;
      };
    }
  | {
      type: "bar_received";
      data: {
        index: number;
        time: number;
        open: number;
        high: number;
        low: number;
        close: number;
        /** The bar's volume, which bounds its fills (absent in sessions recorded before it). */
        volume?: number;
      };
    }
  | ExecutionEvent
  | { type: "phase_changed"; data: { phase: Phase; reason: string } }
  | { type: "halted"; data: { reason: string } }
  | { type: "fail_safe"; data: { frozen: boolean; reason: string } }
  | { type: "reduce_only"; data: { on: boolean; reason: string } }
  | { type: "risk_re_enabled"; data: { by: string; reason: string } };

export type Phase = "Running" | "Draining" | "Stopped";

/** A stored event: the runner's event with its per-bot sequence number and time. */
export interface StoredEvent {
  seq: number;
  type: RunnerEvent["type"];
  occurredAt: Date;
  data: Record<string, unknown>;
}
