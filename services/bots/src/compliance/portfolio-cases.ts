import { describedControl } from "@svc/lib/controls";
import { allocateBars, type Bars } from "../engine/bars.js";
import { alignBars } from "../engine/portfolio/aligned.js";
import { PortfolioRun } from "../engine/portfolio/portfolio-run.js";
import type { ExecutionEvent } from "../execution/events.js";
import { CONTROL } from "../execution/risk-controls/index.js";
import {
  asJson,
  type BotUnderTest,
  type CaseResult,
  type ConformanceCase,
} from "./compliance-case.js";
import { onlyControl, REFERENCE_PRICE, T0 } from "./venue.js";

const P = REFERENCE_PRICE;

/** Whether the bot trades a universe of several symbols: its cases then run on the portfolio. */
export function tradesUniverse(bot: BotUnderTest): boolean {
  return (bot.symbols?.length ?? 0) > 1;
}

/** `n` bars of one minute at the reference price (or `price`), the same for every symbol of a case. */
export function flatBars(n: number, price: (i: number) => number = () => P, volume = 1e9): Bars {
  const bars = allocateBars(n);
  for (let i = 0; i < n; i++) {
    const p = price(i);
    bars.time[i] = T0 + i * 60_000;
    bars.open[i] = bars.close[i] = p;
    bars.high[i] = p * 1.001;
    bars.low[i] = p * 0.999;
    bars.volume[i] = volume;
  }
  return bars;
}

/**
 * The capital threshold of a bot trading a universe (docs/portfolios.md): it holds the gross
 * value of every position, so two symbols each under the limit alone are refused together. The
 * portfolio's order path (PortfolioRun) sends a full target of its first two symbols at one close,
 * with cash making each worth three quarters of the limit: the first goes out, the second is
 * refused by capital_threshold naming the limit and the portfolio's value.
 */
export const portfolioCapitalThreshold: ConformanceCase = {
  name: CONTROL.capitalThreshold,
  article: describedControl(CONTROL.capitalThreshold).articles,
  run(bot): CaseResult {
    const symbols = bot.symbols!.slice(0, 2);
    const limit = bot.limits.capitalLimit;
    const expected = `of two symbols each worth 0.75 x the limit, the first is placed and the second refused by capital_threshold (limit ${limit}), the portfolio's gross value counted`;
    const base = { name: this.name, article: this.article, expected };
    if (!(limit > 0))
      return {
        ...base,
        observed: "no capital_threshold control: risk.capital_limit is not set",
        passed: false,
        evidence: asJson({ setting: "risk.capital_limit", symbols }),
      };
    const events: ExecutionEvent[] = [];
    const run = new PortfolioRun(
      { ...bot.costs, initialCash: (1.5 * limit) / bot.costs.positionSize },
      symbols,
      {
        risk: {
          limits: onlyControl(bot.limits, { capitalLimit: limit }),
          refused: new Map(),
        },
        onEvent: (e) => events.push(e),
      },
    );
    const bars = alignBars(new Map(symbols.map((s) => [s, flatBars(2)])));
    run.runStrategies(bars, [{ onBar: () => 1 }, { onBar: () => 1 }], 0, 1);
    const of = (e: ExecutionEvent) => (e.data as { symbol?: string }).symbol;
    const placed = events.filter((e) => e.type === "order_placed");
    const refused = events.find(
      (e): e is Extract<ExecutionEvent, { type: "order_rejected" }> =>
        e.type === "order_rejected" && e.data.check === CONTROL.capitalThreshold,
    );
    const passed =
      placed.length === 1 &&
      of(placed[0]!) === symbols[0] &&
      refused !== undefined &&
      of(refused) === symbols[1] &&
      refused.data.limit === limit;
    return {
      ...base,
      observed: refused
        ? `${placed.map((e) => `${of(e)} placed`).join(", ") || "nothing placed"}; ${of(refused)} refused by ${refused.data.check}: limit ${String(refused.data.limit)}, value ${String(refused.data.value)} (${refused.data.reason})`
        : `not refused by capital_threshold: ${placed.map((e) => `${of(e)} placed`).join(", ")}`,
      passed,
      evidence: asJson({ symbols, records: events }),
    };
  },
};
