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
        /** A portfolio's universe (symbol is its first). */
        symbols?: string[];
        initial_cash: number;
        data_source: string;
      };
    }
  | {
      type: "bar_received";
      data: {
        index: number;
        /** A portfolio's bar names its symbol: at one index of its clock, a bar of each that has one. */
        symbol?: string;
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
  | {
      type: "halted";
      data: {
        reason: string;
        /** A live runner's halt: what the venue confirmed (live/venue-halt.ts). */
        venue?: {
          mode: string;
          cancelled: number;
          open_at_venue: number | null;
          position_at_venue: number | null;
          closing_orders: number;
          confirmed: boolean;
          problems: string[];
        };
      };
    }
  | { type: "fail_safe"; data: { frozen: boolean; reason: string } }
  | { type: "reduce_only"; data: { on: boolean; reason: string } }
  | { type: "risk_re_enabled"; data: { by: string; reason: string } }
  | {
      /** A line of a sandboxed strategy's ctx.log. */
      type: "strategy_log";
      data: {
        /** The time of the bar (or fill) it was written at; null in init and onStop. */
        time: number | null;
        level: "info" | "warn";
        message: string;
        fields?: Record<string, string | number | boolean>;
      };
    }
  | {
      /** The run's log lines past its limit (SVC_STRATEGY_LOG_LINES): counted, not kept. */
      type: "strategy_log_dropped";
      data: { dropped: number };
    }
  | {
      /**
       * One inference a code strategy asked for (ctx.model): what the model answered, so a
       * replay answers the strategy from here instead of running the model again.
       */
      type: "model_output";
      data: {
        time: number | null;
        model: string;
        digest: string;
        outputs: Record<string, { dims: number[]; data: number[] }>;
      };
    };

export type Phase = "Running" | "Draining" | "Stopped";

/** A stored event: the runner's event with its per-bot sequence number and time. */
export interface StoredEvent {
  seq: number;
  type: RunnerEvent["type"];
  occurredAt: Date;
  data: Record<string, unknown>;
}

/** Every type a bot records, in the order a session meets them: the events filter's known types. */
export const EVENT_TYPES = [
  "session_started",
  "phase_changed",
  "bar_received",
  "order_placed",
  "order_filled",
  "order_cancelled",
  "order_rejected",
  "position_changed",
  "risk_disabled",
  "risk_re_enabled",
  "reduce_only",
  "fail_safe",
  "strategy_log",
  "strategy_log_dropped",
  "model_output",
  "halted",
] as const satisfies readonly RunnerEvent["type"][];

// A type added to RunnerEvent and not to EVENT_TYPES fails to compile here.
type Unlisted = Exclude<RunnerEvent["type"], (typeof EVENT_TYPES)[number]>;
export const everyEventTypeListed: [Unlisted] extends [never] ? true : Unlisted = true;
