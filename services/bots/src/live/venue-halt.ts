import type { HaltMode } from "../runner/bot-runner.js";
import type { LedgerVenue } from "../execution/venues/pipeline-venue.js";
import { POSITION_TOLERANCE, venuePositions } from "./reconcile.js";

/** What the venue confirmed of a halt: Draining and Stopped report this, never the runner's hopes. */
export interface VenueHalt {
  mode: HaltMode;
  /** Orders the venue confirmed cancelled. */
  cancelled: number;
  /** The venue's open orders of the symbol after the halt, by its own mass status. */
  openAtVenue: number;
  /** The venue's position after the halt (undefined: it would not say). */
  positionAtVenue: number | undefined;
  /** Closing orders sent by flatten. */
  closingOrders: number;
  /** Whether the venue confirmed what the mode asks: nothing open (cancel), flat too (flatten). */
  confirmed: boolean;
  /** What is not confirmed, in words. */
  problems: string[];
}

const why = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * Applies a kill switch mode at the venue and reports what the venue itself confirmed:
 * - `freeze`: sends nothing (the runner has stopped sending); the venue's open orders and
 *   position are read and reported as they stand;
 * - `cancel`: a mass cancel, waiting for each order's cancel confirmation, then mass status again
 *   until the venue lists no open order of the symbol (a few rounds);
 * - `flatten`: `cancel`, then market orders against the venue's own position until it reports flat.
 */
export async function haltAtVenue(
  venue: LedgerVenue,
  mode: HaltMode,
  symbol: string,
  o: { idPrefix: string; rounds?: number },
): Promise<VenueHalt> {
  const rounds = o.rounds ?? 3;
  const out: VenueHalt = {
    mode,
    cancelled: 0,
    openAtVenue: NaN,
    positionAtVenue: undefined,
    closingOrders: 0,
    confirmed: false,
    problems: [],
  };
  if (mode !== "freeze") {
    for (let round = 0; round < rounds; round++) {
      try {
        out.cancelled += await venue.cancelAll(symbol);
      } catch (e) {
        out.problems.push(`mass cancel: ${why(e)}`);
      }
      const open = await openAt(venue, symbol, out);
      if (open === 0) break;
    }
  }
  if (mode === "flatten") {
    for (let round = 0; round < rounds; round++) {
      const units = await positionAt(venue, symbol, out);
      if (units === undefined || Math.abs(units) <= POSITION_TOLERANCE) break;
      out.closingOrders++;
      try {
        await venue.submit({
          clientId: `${o.idPrefix}flat${round + 1}-${Date.now().toString(36)}`,
          symbol,
          side: units > 0 ? "sell" : "buy",
          units: Math.abs(units),
          kind: "market",
        });
      } catch (e) {
        out.problems.push(`closing order: ${why(e)}`);
      }
    }
  }
  const open = await openAt(venue, symbol, out);
  const units = await positionAt(venue, symbol, out);
  out.confirmed =
    mode === "freeze"
      ? open !== undefined
      : open === 0 &&
        (mode === "cancel" || (units !== undefined && Math.abs(units) <= POSITION_TOLERANCE));
  return out;
}

async function openAt(
  venue: LedgerVenue,
  symbol: string,
  out: VenueHalt,
): Promise<number | undefined> {
  try {
    out.openAtVenue = (await venue.openOrders(symbol)).filter((s) => s.symbol === symbol).length;
    return out.openAtVenue;
  } catch (e) {
    out.problems.push(`mass status: ${why(e)}`);
    return undefined;
  }
}

async function positionAt(
  venue: LedgerVenue,
  symbol: string,
  out: VenueHalt,
): Promise<number | undefined> {
  try {
    out.positionAtVenue = (await venuePositions(venue, [symbol])).get(symbol);
    return out.positionAtVenue;
  } catch (e) {
    out.problems.push(`positions: ${why(e)}`);
    return undefined;
  }
}
