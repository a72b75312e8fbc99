import type { ExecutionEvent } from "../execution/events.js";
import { describedControl } from "@svc/lib/controls";
import {
  CONTROL,
  RISK_CONTROLS,
  type Breach,
  type BreachBench,
  type RiskControlModule,
} from "../execution/risk-controls/index.js";
import { asJson, type CaseResult, type ConformanceCase } from "./compliance-case.js";
import { cashForNotional, onlyControl, REFERENCE_PRICE, T0, Venue } from "./venue.js";

const P = REFERENCE_PRICE;
type Rejected = Extract<ExecutionEvent, { type: "order_rejected" }>;

/**
 * The conformance case of a registry control (RISK_CONTROLS): its crafted breach, judged on the
 * records of the order path: the breaching order must be refused by that control, naming its
 * limit. A control the bot left off (limit 0) cannot refuse it, and the case fails naming the
 * setting to fix; a control a bot may rightly run without (a fleet's threshold) is tried at its
 * trial limit instead, so the case still shows that the control works.
 */
export function breachCase(c: RiskControlModule, breach: Breach): ConformanceCase {
  return {
    name: c.id,
    article: c.articles,
    run(bot): CaseResult {
      const own = c.limitOf(bot.limits);
      const trial = own === undefined ? c.trial : undefined;
      const limits = trial ? { ...bot.limits, ...trial } : bot.limits;
      const limit = c.limitOf(limits);
      const bench: BreachBench<Venue> = {
        price: P,
        t0: T0,
        limits,
        cashFor: (notional) => cashForNotional(bot, notional),
        open: (o) =>
          new Venue(bot, onlyControl(limits, limit === undefined ? {} : c.only(limits)), o),
      };
      const v = breach.craft(bench);
      const refusal = v.of("order_rejected").find((e) => e.data.check === c.id);
      const expected = `${breach.what} is refused by ${c.id}${limit === undefined ? "" : ` (limit ${String(limit)})`}`;
      const base = { name: c.id, article: c.articles, expected };
      if (limit === undefined)
        return {
          ...base,
          observed: `no ${c.id} control: ${c.setting} is not set, and the breaching order was ${describe(v)}`,
          passed: false,
          evidence: asJson({ setting: c.setting, records: v.events }),
        };
      const seen = refusal ? refusedText(refusal) : `not refused by ${c.id}: ${describe(v)}`;
      return {
        ...base,
        observed: trial
          ? `${c.setting} is not set; tried at limit ${String(limit)}: ${seen}`
          : seen,
        passed: refusal !== undefined && refusal.data.limit === limit,
        evidence: asJson({ ...(trial ? { trial_limit: limit } : {}), records: v.events }),
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

/**
 * A burst over the throttle: one more order than it allows within its window. The order over
 * the limit is refused and disables the bot (risk_disabled); the next one is refused as such.
 */
export const throttleBurst: ConformanceCase = {
  name: CONTROL.messageThrottle,
  article: describedControl(CONTROL.messageThrottle).articles,
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

/** Cases of their own, for controls whose breach a single refusal cannot show. */
const OWN_CASES: Partial<Record<string, ConformanceCase>> = {
  [CONTROL.messageThrottle]: throttleBurst,
};

/** The conformance case of a registry control, or undefined when it has none (a gap). */
export function caseOf(c: RiskControlModule): ConformanceCase | undefined {
  return OWN_CASES[c.id] ?? (c.breach ? breachCase(c, c.breach) : undefined);
}

/** The control cases of the suite, one per registry control, in the order the controls run. */
export const CONTROL_CASES: readonly ConformanceCase[] = RISK_CONTROLS.flatMap((c) => {
  const found = caseOf(c);
  return found ? [found] : [];
});
