import type { ExecutionEvent } from "../execution/events.js";
import { CONTROL, type RiskLimits } from "../execution/risk-controls/index.js";
import {
  asJson,
  type BotUnderTest,
  type CaseResult,
  type ConformanceCase,
} from "./compliance-case.js";
import { cashForNotional, onlyControl, REFERENCE_PRICE, T0, Venue } from "./venue.js";

const P = REFERENCE_PRICE;
type Rejected = Extract<ExecutionEvent, { type: "order_rejected" }>;

/**
 * A crafted breach of one pre-trade control, judged on the records of the order path: the
 * breaching order must be refused by that control, naming its limit. A control the bot left off
 * (limit 0) cannot refuse it, and the case fails naming the setting to fix.
 */
function breachCase(o: {
  control: string;
  article: string;
  setting: string;
  /** The bot's limit, or undefined when the control is off. */
  limitOf(l: RiskLimits): number | string | undefined;
  keep(l: RiskLimits): Partial<RiskLimits>;
  breach: string;
  /** Sends the breaching order(s) into the venue. */
  craft(bot: BotUnderTest, limits: RiskLimits): Venue;
}): ConformanceCase {
  return {
    name: o.control,
    article: o.article,
    run(bot): CaseResult {
      const limit = o.limitOf(bot.limits);
      const v = o.craft(
        bot,
        onlyControl(bot.limits, limit === undefined ? {} : o.keep(bot.limits)),
      );
      const refusal = v.of("order_rejected").find((e) => e.data.check === o.control);
      const expected = `${o.breach} is refused by ${o.control}${limit === undefined ? "" : ` (limit ${String(limit)})`}`;
      const base = { name: o.control, article: o.article, expected };
      if (limit === undefined)
        return {
          ...base,
          observed: `no ${o.control} control: ${o.setting} is not set, and the breaching order was ${describe(v)}`,
          passed: false,
          evidence: asJson({ setting: o.setting, records: v.events }),
        };
      return {
        ...base,
        observed: refusal ? refusedText(refusal) : `not refused by ${o.control}: ${describe(v)}`,
        passed: refusal !== undefined && refusal.data.limit === limit,
        evidence: asJson({ records: v.events }),
      };
    },
  };
}

function refusedText(r: Rejected): string {
  return `refused by ${r.data.check}: limit ${String(r.data.limit)}, value ${String(r.data.value)} (${r.data.reason})`;
}

function describe(v: Venue): string {
  const rejected = v.of("order_rejected");
  if (rejected.length > 0) return rejected.map(refusedText).join("; ");
  const placed = v.of("order_placed");
  return placed.length > 0
    ? `accepted (${placed.map((e) => `${e.data.side} ${e.data.units}`).join(", ")})`
    : "not sent";
}

/** An order of `units` at the reference price, sent once. */
function oneOrder(bot: BotUnderTest, limits: RiskLimits, units: number, symbol?: string): Venue {
  const v = new Venue(bot, limits, { cash: cashForNotional(bot, units * P), symbol });
  v.pipeline.decide(1, P, T0, P);
  return v;
}

const positive = (x: number) => (x > 0 ? x : undefined);

export const oversizedOrder = breachCase({
  control: CONTROL.maxOrderUnits,
  article: "RTS 6 Art. 15(1)(c); SEC 15c3-5 (c)(1)(ii)",
  setting: "risk.max_order_units",
  limitOf: (l) => positive(l.maxOrderUnits),
  keep: (l) => ({ maxOrderUnits: l.maxOrderUnits }),
  breach: "an order of twice the maximum volume",
  craft: (bot, l) => oneOrder(bot, l, 2 * (bot.limits.maxOrderUnits || 1_000_000)),
});

export const overValueOrder = breachCase({
  control: CONTROL.maxOrderNotional,
  article: "RTS 6 Art. 15(1)(b); SEC 15c3-5 (c)(1)(ii)",
  setting: "risk.max_order_notional",
  limitOf: (l) => positive(l.maxOrderNotional),
  keep: (l) => ({ maxOrderNotional: l.maxOrderNotional }),
  breach: "an order of twice the maximum value",
  craft: (bot, l) => oneOrder(bot, l, (2 * (bot.limits.maxOrderNotional || 1e9)) / P),
});

// RTS 6 Art. 15 asks for market and credit risk limits without a sub-point of 15(1), so these
// cite the article whole: they do not stand in for a 15(1)(a) to (d) control.
export const capitalBreach = breachCase({
  control: CONTROL.capitalThreshold,
  article: "RTS 6 Art. 15; SEC 15c3-5 (c)(1)(i)",
  setting: "risk.capital_limit",
  limitOf: (l) => positive(l.capitalLimit),
  keep: (l) => ({ capitalLimit: l.capitalLimit }),
  breach: "an order leaving a position worth twice the capital threshold",
  craft: (bot, l) => oneOrder(bot, l, (2 * (bot.limits.capitalLimit || 1e9)) / P),
});

/**
 * A position of half the account is bought at the reference price and the price halves, so the
 * run has lost twice the credit threshold (a quarter of the account); then the bot adds to it.
 */
export const creditBreach = breachCase({
  control: CONTROL.creditThreshold,
  article: "RTS 6 Art. 15; SEC 15c3-5 (c)(1)(i)",
  setting: "risk.credit_limit",
  limitOf: (l) => positive(l.creditLimit),
  keep: (l) => ({ creditLimit: l.creditLimit }),
  breach: "an order adding to a position after a loss of twice the credit threshold",
  craft(bot, l) {
    const v = new Venue(bot, l, {
      cash: cashForNotional(bot, 8 * (bot.limits.creditLimit || 1e9)),
    });
    v.pipeline.decide(0.5, P, T0, P);
    v.broker.onBar(P, P, P);
    v.pipeline.decide(1, P / 2, T0 + 1_000, P);
    return v;
  },
});

export const outsideCollar = breachCase({
  control: CONTROL.priceCollar,
  article: "RTS 6 Art. 15(1)(a); SEC 15c3-5 (c)(1)(ii)",
  setting: "risk.price_collar_pct",
  limitOf: (l) => positive(l.priceCollarPct),
  keep: (l) => ({ priceCollarPct: l.priceCollarPct }),
  breach: "an order priced twice the collar away from the reference price",
  craft(bot, l) {
    const away = 2 * (bot.limits.priceCollarPct || 25);
    const price = P * (1 + away / 100);
    const v = new Venue(bot, l, { cash: cashForNotional(bot, price) });
    v.pipeline.decide(1, price, T0, P);
    return v;
  },
});

export const duplicateOrder = breachCase({
  control: CONTROL.duplicateOrder,
  article: "SEC 15c3-5 (c)(1)(ii)",
  setting: "risk.duplicate_window_s",
  limitOf: (l) => (l.duplicateWindowMs > 0 ? l.duplicateWindowMs / 1000 : undefined),
  keep: (l) => ({ duplicateWindowMs: l.duplicateWindowMs }),
  breach: "the same order sent again within the duplicate window",
  craft(bot, l) {
    const v = new Venue(bot, l, { cash: cashForNotional(bot, P) });
    v.pipeline.decide(1, P, T0, P);
    v.broker.cancelAll("conformance: resend");
    v.pipeline.decide(0, P, T0, P);
    const later = Math.min((bot.limits.duplicateWindowMs || 2_000) / 2, 1_000);
    v.pipeline.decide(1, P, T0 + later, P);
    return v;
  },
});

export const restrictedSymbol = breachCase({
  control: CONTROL.restrictedInstrument,
  article: "SEC 15c3-5 (c)(2)(ii)",
  setting: "risk.restricted_symbols",
  limitOf: (l) => (l.restricted.size > 0 ? [...l.restricted].join(",") : undefined),
  keep: (l) => ({ restricted: l.restricted }),
  breach: "an order in a restricted instrument",
  craft: (bot, l) => oneOrder(bot, l, 1, [...bot.limits.restricted][0] ?? "RESTRICTED-TEST"),
});

/**
 * A burst over the throttle: one more order than it allows within its window. The order over
 * the limit is refused and disables the bot (risk_disabled); the next one is refused as such.
 */
export const throttleBurst: ConformanceCase = {
  name: CONTROL.messageThrottle,
  article: "RTS 6 Art. 15(1)(d), 15(3)",
  run(bot): CaseResult {
    const l = bot.limits;
    const on = l.maxOrdersPerWindow > 0 && l.throttleWindowMs > 0;
    const n = on ? l.maxOrdersPerWindow : 1_000;
    const windowMs = on ? l.throttleWindowMs : 1_000;
    const limits = onlyControl(l, on ? { maxOrdersPerWindow: n, throttleWindowMs: windowMs } : {});
    const v = new Venue(bot, limits, { cash: cashForNotional(bot, P) });
    // n + 2 orders inside one window: alternate sides, each cancelled so the next may go out.
    for (let k = 0; k < n + 2; k++) {
      v.pipeline.decide(k % 2 === 0 ? 1 : -1, P, T0 + (k * windowMs) / (n + 3), P);
      v.broker.cancelAll("conformance: burst");
    }
    const throttled = v.of("order_rejected").find((e) => e.data.check === CONTROL.messageThrottle);
    const disabled = v.of("risk_disabled")[0];
    const after = v.of("order_rejected").find((e) => e.data.check === CONTROL.riskDisabled);
    const placed = v.of("order_placed").length;
    const expected = `of ${n + 2} orders within ${windowMs / 1000} s, the first ${n} go out; order ${n + 1} is refused by message_throttle and disables the bot; later orders are refused as risk_disabled`;
    const base = { name: this.name, article: this.article, expected };
    const evidence = asJson({
      placed,
      throttled: throttled ? { ...throttled.data } : null,
      disabled: disabled ? { ...disabled.data } : null,
      refused_after: after ? { ...after.data } : null,
    });
    if (!on)
      return {
        ...base,
        observed: `no message throttle: risk.max_orders_per_window and risk.throttle_window_s are not set, and ${placed} of ${n + 2} orders went out`,
        passed: false,
        evidence,
      };
    const ok =
      placed === n &&
      throttled !== undefined &&
      throttled.data.limit === n &&
      disabled !== undefined &&
      after !== undefined;
    return {
      ...base,
      observed: throttled
        ? `${placed} went out; ${refusedText(throttled)}; ${disabled ? "bot disabled" : "bot not disabled"}; ${after ? "the next order refused as risk_disabled" : "the next order not refused"}`
        : `${placed} of ${n + 2} went out, none refused by message_throttle`,
      passed: ok,
      evidence,
    };
  },
};
