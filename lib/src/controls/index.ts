/**
 * The pre-trade risk controls as the platform's records and reports name them: what each checks,
 * the provisions it serves (RTS 6, SEC 15c3-5), the BotSpec setting that switches it on, and
 * whether it holds the bot or its fleet. The bots service builds each control's module (its
 * check, conformance breach and stress witness) on its entry here; the compliance service derives
 * the articles its report judges the conformance cases by from the same entries, so a control
 * added here is a case, a check and a cited article at once.
 */
export interface ControlDescription {
  /** The name order_rejected records and conformance cases give it. */
  readonly id: string;
  /** What it checks, in words a compliance officer reads. */
  readonly checks: string;
  /** The provisions it serves, `;`-separated, as a conformance case cites them. */
  readonly articles: string;
  /** The BotSpec setting (or settings) that switch it on; off while unset. */
  readonly setting: string;
  /** Whose figures it holds to its limit: the bot's own, or its fleet's together. */
  readonly scope: "bot" | "fleet";
}

/** In the order the controls run on an order: what the order is before what it does to the books. */
export const PRE_TRADE_CONTROLS: readonly ControlDescription[] = [
  {
    id: "restricted_instrument",
    checks: "no order adds exposure in an instrument on the bot's restricted list",
    articles: "SEC 15c3-5 (c)(2)(ii)",
    setting: "risk.restricted_symbols",
    scope: "bot",
  },
  {
    id: "max_order_units",
    checks: "no order is larger than the maximum order volume",
    articles: "RTS 6 Art. 15(1)(c); SEC 15c3-5 (c)(1)(ii)",
    setting: "risk.max_order_units",
    scope: "bot",
  },
  {
    id: "max_order_notional",
    checks: "no order is worth more than the maximum order value",
    articles: "RTS 6 Art. 15(1)(b); SEC 15c3-5 (c)(1)(ii)",
    setting: "risk.max_order_notional",
    scope: "bot",
  },
  {
    id: "price_collar",
    checks: "no order is priced further from the reference price than the collar",
    articles: "RTS 6 Art. 15(1)(a); SEC 15c3-5 (c)(1)(ii)",
    setting: "risk.price_collar_pct",
    scope: "bot",
  },
  // RTS 6 Art. 15 asks for market and credit risk limits without a sub-point of 15(1), so the
  // thresholds cite the article whole: they do not stand in for a 15(1)(a) to (d) control.
  {
    id: "capital_threshold",
    checks: "no order leaves the bot's gross position worth more than its capital threshold",
    articles: "RTS 6 Art. 15; SEC 15c3-5 (c)(1)(i)",
    setting: "risk.capital_limit",
    scope: "bot",
  },
  {
    id: "credit_threshold",
    checks: "no order adds exposure once the bot has lost more than its credit threshold",
    articles: "RTS 6 Art. 15; SEC 15c3-5 (c)(1)(i)",
    setting: "risk.credit_limit",
    scope: "bot",
  },
  {
    id: "fleet_capital_threshold",
    checks:
      "no order leaves the fleet's gross position worth more than the fleet's capital threshold",
    articles: "RTS 6 Art. 15; SEC 15c3-5 (c)(1)(i)",
    setting: "the fleet's capital_limit",
    scope: "fleet",
  },
  {
    id: "fleet_credit_threshold",
    checks: "no order adds exposure once the fleet has lost more than the fleet's credit threshold",
    articles: "RTS 6 Art. 15; SEC 15c3-5 (c)(1)(i)",
    setting: "the fleet's credit_limit",
    scope: "fleet",
  },
  {
    id: "duplicate_order",
    checks: "no order repeats one of the same side, size and price sent within the window",
    articles: "SEC 15c3-5 (c)(1)(ii)",
    setting: "risk.duplicate_window_s",
    scope: "bot",
  },
  {
    id: "message_throttle",
    checks:
      "no more orders than allowed within the throttle window; a breach disables the bot until a person re-enables it",
    articles: "RTS 6 Art. 15(1)(d), 15(3)",
    setting: "risk.max_orders_per_window and risk.throttle_window_s",
    scope: "bot",
  },
];

/** Every provision the controls cite, in the order first cited (each `;`-separated part). */
export function citedProvisions(controls = PRE_TRADE_CONTROLS): string[] {
  return [...new Set(controls.flatMap((c) => c.articles.split(";").map((p) => p.trim())))];
}

/** The description of control `id` (throws for an id no control has: a typo in a module). */
export function describedControl(id: string): ControlDescription {
  const found = PRE_TRADE_CONTROLS.find((c) => c.id === id);
  if (!found) throw new Error(`no pre-trade control "${id}" in lib/controls`);
  return found;
}
