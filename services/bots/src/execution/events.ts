/**
 * What the order path reports, in order: the same records for a backtest, a paper session and a
 * stress or conformance run, so their histories can be compared record by record. A runner
 * stores them in bot_events; `data` is plain JSON so the history stays readable.
 */
export type ExecutionEvent =
  | {
      type: "order_placed";
      data: {
        order_id: string;
        side: Side;
        kind: OrderKind;
        units: number;
        limit_price?: number;
        stop_price?: number;
      };
    }
  | {
      type: "order_filled";
      data: {
        order_id: string;
        side: Side;
        /** The units this fill took. */
        units: number;
        price: number;
        fee: number;
        /**
         * Units of the order the bar's volume left unfilled (see SimulatedBroker): a market
         * order's rest is then cancelled, a limit order's keeps working. Absent on a whole fill.
         */
        unfilled?: number;
      };
    }
  | { type: "order_cancelled"; data: { order_id: string; reason: string } }
  | {
      type: "order_rejected";
      data: {
        side: Side;
        units: number;
        check: string;
        reason: string;
        /** The limit the check holds the order to, and what it observed (risk controls). */
        limit?: number | string;
        value?: number | string;
      };
    }
  | {
      /** A throttle breach: every later order is refused until a person re-enables the bot. */
      type: "risk_disabled";
      data: { control: string; reason: string; limit: number; value: number };
    }
  | { type: "position_changed"; data: { symbol: string; units: number } };

export type Side = "buy" | "sell";
/** A stop order becomes a market order once a bar trades at or through its stop price. */
export type OrderKind = "market" | "limit" | "stop";

/** An order the broker holds until a bar fills it or it is cancelled. */
export interface Order {
  id: string;
  side: Side;
  kind: OrderKind;
  units: number;
  limitPrice?: number;
  stopPrice?: number;
}
