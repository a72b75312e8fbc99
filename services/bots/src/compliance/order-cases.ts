import { asJson, type CaseResult, type ConformanceCase } from "./compliance-case.js";
import { onlyControl, REFERENCE_PRICE, T0, Venue } from "./venue.js";

const ART_6 = "RTS 6 Art. 6";
const P = REFERENCE_PRICE;

/**
 * The order types the bot uses are accepted by the venue: its order path sends market orders
 * (sizing never prices an order), which must be placed and filled at the next bar's open.
 */
export const marketOrderAccepted: ConformanceCase = {
  name: "market_order_accepted",
  article: ART_6,
  run(bot): CaseResult {
    const v = new Venue(bot, onlyControl(bot.limits, {}), { cash: bot.initialCash });
    v.pipeline.decide(1, P, T0, NaN);
    v.broker.onBar(P, P * 1.01, P * 0.99);
    const placed = v.of("order_placed");
    const filled = v.of("order_filled");
    const ok =
      placed.length === 1 &&
      placed[0]!.data.kind === "market" &&
      filled.length === 1 &&
      filled[0]!.data.order_id === placed[0]!.data.order_id &&
      v.broker.units === placed[0]!.data.units;
    return {
      name: this.name,
      article: this.article,
      expected: "one market order placed and filled in full at the next bar's open",
      observed: `${placed.length} placed (${placed.map((e) => e.data.kind).join(",") || "none"}), ${filled.length} filled, position ${v.broker.units}`,
      passed: ok,
      evidence: asJson({ placed, filled }),
    };
  },
};

/** A cancel sent before the fill is honoured: the order never fills and the position stays flat. */
export const cancelHonoured: ConformanceCase = {
  name: "cancel_honoured",
  article: ART_6,
  run(bot): CaseResult {
    const v = new Venue(bot, onlyControl(bot.limits, {}), { cash: bot.initialCash });
    v.pipeline.decide(1, P, T0, NaN);
    const id = v.broker.openOrders[0]?.id;
    if (id) v.broker.cancel(id, "conformance: cancel before the fill");
    v.broker.onBar(P, P * 1.01, P * 0.99);
    const cancelled = v.of("order_cancelled");
    const ok =
      id !== undefined &&
      cancelled.length === 1 &&
      cancelled[0]!.data.order_id === id &&
      v.of("order_filled").length === 0 &&
      v.broker.units === 0 &&
      v.broker.openOrders.length === 0;
    return {
      name: this.name,
      article: this.article,
      expected: "the working order is cancelled, never filled; position 0",
      observed: `${id ? `order ${id} placed` : "no order placed"}, ${cancelled.length} cancelled, ${v.of("order_filled").length} filled, position ${v.broker.units}`,
      passed: ok,
      evidence: asJson({ cancelled }),
    };
  },
};
