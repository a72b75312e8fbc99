import type { ILooseObject } from "jspurefix";
import type { OrderKind, Side } from "../../events.js";
import type { VenueOrderState } from "../../kernel/live-venue.js";
import type { LedgerReport } from "../order-ledger.js";

/**
 * FIX 4.4 OrdStatus (39) onto the kernel's order states. Pending cancel and pending replace
 * still work at the venue; done for day and expired end an order as a cancel does; a status the
 * kernel has no word for (stopped, suspended, calculated, accepted for bidding) is `working`: the
 * order is still the venue's.
 */
export const fixOrderStates: Readonly<Record<string, VenueOrderState>> = {
  "0": "working", // New
  "1": "partially_filled",
  "2": "filled",
  "3": "cancelled", // DoneForDay
  "4": "cancelled",
  "5": "working", // Replaced
  "6": "working", // PendingCancel
  "7": "working", // Stopped
  "8": "rejected",
  "9": "working", // Suspended
  A: "pending", // PendingNew
  B: "working", // Calculated
  C: "cancelled", // Expired
  D: "working", // AcceptedForBidding
  E: "working", // PendingReplace
};

const num = (v: unknown): number => (typeof v === "number" ? v : Number(v ?? NaN));

export const fixSide = (side: Side): string => (side === "buy" ? "1" : "2");

/**
 * An ExecutionReport (8) in the ledger's terms. A cancel's report names the cancel request in
 * ClOrdID and the order in OrigClOrdID; `cancelIds` maps the adapter's cancel ids back.
 */
export function ledgerReport(body: ILooseObject, cancelIds: Map<string, string>): LedgerReport {
  const clOrdId = String(body.ClOrdID ?? "");
  const orig = body.OrigClOrdID !== undefined ? String(body.OrigClOrdID) : undefined;
  const clientId = cancelIds.get(clOrdId) ?? orig ?? clOrdId;
  const state = fixOrderStates[String(body.OrdStatus)] ?? "unknown";
  const qty = num((body.OrderQtyData as ILooseObject | undefined)?.OrderQty);
  const side: Side = body.Side === "2" ? "sell" : "buy";
  const kind: OrderKind = body.OrdType === "1" ? "market" : "limit";
  const symbol = String((body.Instrument as ILooseObject | undefined)?.Symbol ?? "");
  const r: LedgerReport = {
    clientId,
    state,
    filled: num(body.CumQty) || 0,
    averagePrice: num(body.AvgPx) || 0,
  };
  if (body.OrderID !== undefined && body.OrderID !== "NONE") r.venueOrderId = String(body.OrderID);
  if (body.LastQty !== undefined) {
    r.lastUnits = num(body.LastQty);
    r.lastPrice = num(body.LastPx);
  }
  if (body.Commission !== undefined) r.fee = num(body.Commission);
  if (body.Text !== undefined) r.reason = String(body.Text);
  // A status report of an order the venue knows carries enough to adopt it after a restart.
  if (symbol && qty > 0 && state !== "rejected")
    r.order = {
      symbol,
      side,
      kind,
      units: qty,
      ...(body.Price !== undefined ? { limitPrice: num(body.Price) } : {}),
    };
  return r;
}
