import type { OrderKind, Side } from "../execution/events.js";
import type { StoredEvent } from "../runner/events.js";

/** An order as the bot's events tell it: what was placed and how much of it was booked filled. */
export interface BookedOrder {
  clientId: string;
  symbol: string;
  side: Side;
  kind: OrderKind;
  units: number;
  limitPrice?: number;
  filled: number;
  averagePrice: number;
  /** Neither filled in whole, cancelled nor rejected in the events. */
  open: boolean;
}

/** What the bot's event-sourced state says it holds, the side reconciliation compares with the venue. */
export interface EventsBook {
  cash: number;
  positions: Record<string, number>;
  orders: Map<string, BookedOrder>;
}

/**
 * Folds a bot's events into the book a live runner starts from. Orders are read from their own
 * records (order_placed, order_filled, order_cancelled), not from the snapshot's open orders, so
 * each order keeps the units already booked: a venue's cumulative report then books only the rest.
 */
export function bookFromEvents(events: readonly StoredEvent[], symbol: string): EventsBook {
  const book: EventsBook = { cash: 0, positions: {}, orders: new Map() };
  let started = false;
  for (const e of events) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- event data is checked by its type tag
    const d = e.data as Record<string, any>;
    switch (e.type) {
      case "session_started":
        if (!started) book.cash = Number(d.initial_cash ?? 0);
        started = true;
        break;
      case "order_placed":
        book.orders.set(String(d.order_id), {
          clientId: String(d.order_id),
          symbol: typeof d.symbol === "string" ? d.symbol : symbol,
          side: d.side,
          kind: d.kind ?? "market",
          units: Number(d.units),
          ...(typeof d.limit_price === "number" ? { limitPrice: d.limit_price } : {}),
          filled: 0,
          averagePrice: 0,
          open: true,
        });
        break;
      case "order_filled": {
        const units = Number(d.units);
        const price = Number(d.price);
        book.cash -= (d.side === "buy" ? 1 : -1) * units * price + Number(d.fee ?? 0);
        const o = book.orders.get(String(d.order_id));
        if (!o) break;
        o.averagePrice = (o.averagePrice * o.filled + price * units) / (o.filled + units);
        o.filled += units;
        if (o.filled >= o.units - 1e-9) o.open = false;
        break;
      }
      case "order_cancelled": {
        const o = book.orders.get(String(d.order_id));
        if (o) o.open = false;
        break;
      }
      case "position_changed":
        book.positions[String(d.symbol)] = Number(d.units);
        break;
    }
  }
  return book;
}

export function openOrdersOf(book: EventsBook): BookedOrder[] {
  return [...book.orders.values()].filter((o) => o.open);
}
