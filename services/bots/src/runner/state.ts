import type { Order, OrderKind, Side } from "../execution/events.js";
import type { Phase, StoredEvent } from "./events.js";

/** The state of a bot folded from its events: what the snapshot and replay show. */
export interface BotState {
  seq: number;
  phase: Phase | "Idle";
  cash: number;
  initialCash: number;
  positions: Record<string, number>;
  lastPrice: number;
  /** A portfolio's last close of each symbol (a one-symbol session's is lastPrice). */
  lastPrices: Record<string, number>;
  symbol: string;
  fees: number;
  fills: number;
  bars: number;
  /** Orders placed and not yet filled or cancelled: what a resumed session's venue still works. */
  openOrders: Record<string, OpenOrder>;
}

/** A working order as its events tell it: a limit order the bar's volume filled in part keeps its rest. */
export interface OpenOrder {
  /** The symbol it is of (a portfolio's; absent in sessions recorded before orders named it). */
  symbol?: string;
  side: string;
  kind: string;
  units: number;
  limitPrice?: number;
  stopPrice?: number;
}

export function emptyState(): BotState {
  return {
    seq: 0,
    phase: "Idle",
    cash: 0,
    initialCash: 0,
    positions: {},
    lastPrice: 0,
    lastPrices: {},
    symbol: "",
    fees: 0,
    fills: 0,
    bars: 0,
    openOrders: {},
  };
}

/** Applies one event; pure, so a snapshot, a checkpoint and a replay all agree. */
export function applyEvent(s: BotState, e: StoredEvent): BotState {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- event data is checked by its type tag
  const d = e.data as Record<string, any>;
  const next: BotState = {
    ...s,
    seq: e.seq,
    positions: { ...s.positions },
    openOrders: { ...s.openOrders },
    lastPrices: s.lastPrices,
  };
  switch (e.type) {
    case "session_started":
      next.symbol = d.symbol;
      // A new session of a bot that held nothing starts from its initial cash.
      if (next.initialCash === 0) {
        next.cash = d.initial_cash;
        next.initialCash = d.initial_cash;
      }
      next.phase = "Running";
      break;
    case "bar_received":
      next.lastPrice = d.close;
      if (typeof d.symbol === "string") next.lastPrices = { ...s.lastPrices, [d.symbol]: d.close };
      next.bars++;
      break;
    case "order_placed":
      next.openOrders[d.order_id] = {
        ...(typeof d.symbol === "string" ? { symbol: d.symbol } : {}),
        side: d.side,
        // Events written before orders had kinds were market orders.
        kind: d.kind ?? "market",
        units: d.units,
        ...(typeof d.limit_price === "number" ? { limitPrice: d.limit_price } : {}),
        ...(typeof d.stop_price === "number" ? { stopPrice: d.stop_price } : {}),
      };
      break;
    case "order_filled": {
      const sign = d.side === "buy" ? 1 : -1;
      next.cash -= sign * (d.units as number) * (d.price as number) + (d.fee as number);
      next.fees += d.fee as number;
      next.fills++;
      const open = next.openOrders[d.order_id];
      if (open && typeof d.unfilled === "number" && d.unfilled > 0)
        next.openOrders[d.order_id] = { ...open, units: d.unfilled };
      else delete next.openOrders[d.order_id];
      break;
    }
    case "order_cancelled":
      delete next.openOrders[d.order_id];
      break;
    case "position_changed":
      if (d.units === 0) delete next.positions[d.symbol];
      else next.positions[d.symbol] = d.units;
      break;
    case "phase_changed":
      next.phase = d.phase;
      break;
    case "halted":
      break;
  }
  return next;
}

export function foldEvents(events: StoredEvent[], from: BotState = emptyState()): BotState {
  return events.reduce(applyEvent, from);
}

/** The spec's snapshot: positions, exposures (fraction of equity per symbol) and metrics. */
export function snapshotOf(s: BotState): {
  positions: Record<string, number>;
  exposures: Record<string, number>;
  metrics: Record<string, number | string>;
} {
  // Each symbol at its own last close (a portfolio's), else at the session's one price.
  const priceOf = (sym: string) => s.lastPrices?.[sym] ?? s.lastPrice;
  const marked = Object.entries(s.positions).reduce(
    (sum, [sym, units]) => sum + units * priceOf(sym),
    0,
  );
  const equity = s.cash + marked;
  const exposures: Record<string, number> = {};
  for (const [sym, units] of Object.entries(s.positions))
    exposures[sym] = equity !== 0 ? (units * priceOf(sym)) / equity : 0;
  return {
    positions: { ...s.positions },
    exposures,
    metrics: {
      phase: s.phase,
      equity,
      cash: s.cash,
      pnl: s.initialCash ? equity - s.initialCash : 0,
      fees: s.fees,
      fills: s.fills,
      bars: s.bars,
      open_orders: Object.keys(s.openOrders).length,
    },
  };
}

/**
 * The orders a resumed session's venue still works, in placement order: an order placed at the
 * last bar before a crash fills at the next bar's open of the session that takes over.
 */
export function workingOrders(open: BotState["openOrders"], symbol?: string): Order[] {
  return Object.entries(open)
    .filter(([, o]) => symbol === undefined || o.symbol === symbol)
    .map(([id, o]) => ({
      id,
      side: o.side as Side,
      kind: o.kind as OrderKind,
      units: o.units,
      ...(o.limitPrice !== undefined ? { limitPrice: o.limitPrice } : {}),
      ...(o.stopPrice !== undefined ? { stopPrice: o.stopPrice } : {}),
    }));
}

/**
 * Where each symbol of a resumed portfolio session stands, from its state and its own events
 * (`seen`): its position, the orders still working (they fill at the next bar's open of the
 * session that takes over) and the next order id of its own running count.
 */
export function portfolioAccounts(
  symbols: readonly string[],
  state: BotState,
  seen: readonly { type: string; data: unknown }[],
): Record<string, { units: number; openOrders: Order[]; nextOrderId: number }> {
  const placed = new Map<string, number>();
  for (const e of seen) {
    const symbol = (e.data as { symbol?: unknown }).symbol;
    if (e.type === "order_placed" && typeof symbol === "string")
      placed.set(symbol, (placed.get(symbol) ?? 0) + 1);
  }
  return Object.fromEntries(
    symbols.map((symbol) => [
      symbol,
      {
        units: state.positions[symbol] ?? 0,
        openOrders: workingOrders(state.openOrders, symbol),
        nextOrderId: (placed.get(symbol) ?? 0) + 1,
      },
    ]),
  );
}
