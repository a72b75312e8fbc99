import {
  TERMINAL_STATES,
  VenueError,
  type VenueOrderStatus,
} from "../execution/kernel/live-venue.js";
import type { LedgerVenue } from "../execution/venues/pipeline-venue.js";
import { openOrdersOf, type EventsBook } from "./events-book.js";

/** Units below this are float noise of a venue's sums, not a position. */
export const POSITION_TOLERANCE = 1e-9;

/** What the start's reconciliation found: each line is something a person can check at the venue. */
export interface Reconciliation {
  /** Orders of the events the venue still works. */
  working: string[];
  /** Orders of the events that finished while no runner watched (their fills are now booked). */
  settled: string[];
  /** Orders of this bot (its id prefix) the venue works and the events did not know: adopted. */
  adopted: string[];
  /** Open orders at the venue that are not this bot's (another id prefix): the start fails. */
  foreign: number;
  /** Per symbol: the venue's position and the events' (after what was booked above). */
  positions: Record<string, { venue: number; events: number }>;
}

/** The venue's state could not be established or does not match the events: the runner does not trade. */
export class ReconciliationFailed extends Error {
  constructor(readonly reasons: string[]) {
    super(`the runner does not trade: ${reasons.join("; ")}`);
    this.name = "ReconciliationFailed";
  }
}

/**
 * Hands the events' book to the adapter's ledger before it connects: after the logon the adapter
 * asks the venue what became of each order still open in the events (FIX: mass status, then a
 * status request per order it did not name), and books only the units the events lack.
 */
export function resumeLedger(venue: LedgerVenue, book: EventsBook): void {
  venue.ledger.resume({
    cash: book.cash,
    positions: book.positions,
    orders: openOrdersOf(book).map((o) => ({
      clientId: o.clientId,
      symbol: o.symbol,
      side: o.side,
      kind: o.kind,
      units: o.units,
      ...(o.limitPrice !== undefined ? { limitPrice: o.limitPrice } : {}),
      filled: o.filled,
      averagePrice: o.averagePrice,
    })),
  });
}

const why = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * Compares the venue's open orders and positions with the bot's event-sourced state, after
 * `resumeLedger` and `connect`, and before the runner sends anything (NautilusTrader's rules):
 * - every order the events hold open must be accounted for by the venue: still working (mass
 *   status) or finished (a status answer, whose missed fills are booked as the bot's events);
 *   an order the venue cannot say anything of fails the start;
 * - the venue's open orders with the bot's id prefix that the events lack (sent, then the runner
 *   died before the acknowledgement was written) are adopted, their fills booked;
 * - the venue's position in each symbol must match the events' once those fills are booked. Only
 *   an answer counts: a complete RequestForPositions answer lists every position, so a symbol it
 *   does not name is flat; a request that timed out, or a venue that publishes no positions while
 *   the events hold one, is never taken for flat.
 * Anything unmatched throws `ReconciliationFailed` naming each difference.
 */
export async function reconcileAtStart(
  venue: LedgerVenue,
  book: EventsBook,
  o: { symbols: readonly string[]; idPrefix: string },
): Promise<Reconciliation> {
  const reasons: string[] = [];
  const out: Reconciliation = {
    working: [],
    settled: [],
    adopted: [],
    foreign: 0,
    positions: {},
  };
  let listed: VenueOrderStatus[];
  try {
    listed = await venue.openOrders();
  } catch (e) {
    throw new ReconciliationFailed([`the venue did not list its open orders (${why(e)})`]);
  }
  const listedIds = new Set(listed.map((s) => s.clientId));
  for (const s of listed) {
    if (book.orders.has(s.clientId)) out.working.push(s.clientId);
    else if (s.clientId.startsWith(o.idPrefix)) out.adopted.push(s.clientId);
    else out.foreign++;
  }
  if (out.foreign > 0)
    reasons.push(
      `the venue works ${out.foreign} open order(s) this bot did not send (ids without its prefix ${o.idPrefix}): a live bot needs a venue account of its own`,
    );
  for (const order of openOrdersOf(book)) {
    if (listedIds.has(order.clientId)) continue;
    const known = venue.ledger.get(order.clientId);
    if (known && TERMINAL_STATES.has(known.state)) {
      out.settled.push(order.clientId);
      continue;
    }
    try {
      const s = await venue.status(order.clientId);
      if (TERMINAL_STATES.has(s.state)) out.settled.push(order.clientId);
      else out.working.push(order.clientId);
    } catch (e) {
      reasons.push(
        `order ${order.clientId} (${order.side} ${order.units} ${order.symbol}, ${order.filled} booked filled) is open in the bot's events and the venue cannot say what became of it (${why(e)})`,
      );
    }
  }
  const symbols = new Set([
    ...o.symbols,
    ...Object.keys(book.positions),
    ...venue.ledger.positions().map((p) => p.symbol),
  ]);
  const venueUnits = await venuePositions(venue, [...symbols]).catch((e: unknown) => {
    reasons.push(
      `the venue did not report its positions (${why(e)}); a missing report is not flat`,
    );
    return null;
  });
  if (venueUnits)
    for (const symbol of symbols) {
      const events = venue.ledger.position(symbol);
      const at = venueUnits.get(symbol);
      if (at === undefined) {
        if (Math.abs(events) > POSITION_TOLERANCE)
          reasons.push(
            `the bot's events hold ${events} ${symbol} and the venue publishes no position to confirm it`,
          );
        continue;
      }
      out.positions[symbol] = { venue: at, events };
      if (Math.abs(at - events) > POSITION_TOLERANCE)
        reasons.push(`the venue reports a position of ${at} ${symbol}, the bot's events ${events}`);
    }
  if (reasons.length > 0) throw new ReconciliationFailed(reasons);
  return out;
}

/**
 * The venue's own figure per symbol: its positions where it publishes them (FIX
 * RequestForPositions); else the base asset's balance (a spot account through ccxt, which holds
 * what its fills bought); else no figure (undefined), which is never read as flat.
 */
export async function venuePositions(
  venue: LedgerVenue,
  symbols: readonly string[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (venue.capabilities.positions === "venue") {
    const reported = await venue.positions();
    // A complete answer: every symbol not named holds nothing.
    for (const s of symbols) out.set(s, 0);
    for (const p of reported) out.set(p.symbol, p.units);
    return out;
  }
  if (venue.capabilities.balances === "venue") {
    const balances = await venue.balances();
    for (const s of symbols) {
      const base = s.split(/[-/]/)[0]!;
      const b = balances.find((x) => x.asset === base);
      out.set(s, b ? b.free + b.locked : 0);
    }
    return out;
  }
  if (symbols.length > 0)
    throw new VenueError(
      "unsupported",
      `the ${venue.name} venue publishes neither positions nor balances`,
    );
  return out;
}
