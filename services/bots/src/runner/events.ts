/**
 * What a running bot records, in order, in bot_events. `data` is plain JSON so the history
 * stays readable by people and by other tools.
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
      data: { index: number; time: number; open: number; high: number; low: number; close: number };
    }
  | {
      type: "order_placed";
      data: {
        order_id: string;
        side: "buy" | "sell";
        kind: "market" | "limit";
        units: number;
        limit_price?: number;
      };
    }
  | {
      type: "order_filled";
      data: { order_id: string; side: "buy" | "sell"; units: number; price: number; fee: number };
    }
  | { type: "order_cancelled"; data: { order_id: string; reason: string } }
  | { type: "position_changed"; data: { symbol: string; units: number } }
  | { type: "phase_changed"; data: { phase: Phase; reason: string } }
  | { type: "halted"; data: { reason: string } }
  | { type: "fail_safe"; data: { frozen: boolean; reason: string } };

export type Phase = "Running" | "Draining" | "Stopped";

/** A stored event: the runner's event with its per-bot sequence number and time. */
export interface StoredEvent {
  seq: number;
  type: RunnerEvent["type"];
  occurredAt: Date;
  data: Record<string, unknown>;
}
