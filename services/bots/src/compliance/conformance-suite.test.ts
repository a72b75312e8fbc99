import { describe, expect, it } from "vitest";
import { riskLimitsFrom } from "../execution/risk-controls/index.js";
import type { BotUnderTest } from "./compliance-case.js";
import { CONFORMANCE_SUITE, suiteFor } from "./conformance-suite.js";

const bot = (risk: Parameters<typeof riskLimitsFrom>[0]): BotUnderTest => ({
  slug: "cf-bot",
  fleet: null,
  symbol: "BTC-USD",
  costs: { feeBps: 10, slippageBps: 5, positionSize: 0.5 },
  initialCash: 100_000,
  limits: riskLimitsFrom(risk),
});

const ALL = {
  maxOrderUnits: 5,
  maxOrderNotional: 50_000,
  capitalLimit: 40_000,
  creditLimit: 5_000,
  priceCollarPct: 5,
  maxOrdersPerWindow: 10,
  throttleWindowS: 60,
  duplicateWindowS: 30,
  restrictedSymbols: ["XYZ"],
};

async function runSuite(b: BotUnderTest) {
  const results = [];
  for (const c of CONFORMANCE_SUITE) results.push(await c.run(b));
  return results;
}

describe("the conformance suite", () => {
  it("passes every case of a bot with every control set, each naming its article", async () => {
    const results = await runSuite(bot(ALL));
    for (const r of results) expect(r.passed, `${r.name}: ${r.observed}`).toBe(true);
    expect(results.map((r) => r.name)).toContain("kill_switch_drain");
    expect(results.every((r) => r.article.length > 0)).toBe(true);
  });

  it("fails the case of a control left off, naming the setting, and only that case", async () => {
    const results = await runSuite(bot({ ...ALL, priceCollarPct: 0 }));
    const failed = results.filter((r) => !r.passed);
    expect(failed.map((r) => r.name)).toEqual(["price_collar"]);
    expect(failed[0]!.observed).toMatch(/risk\.price_collar_pct is not set/);
  });

  it("crafts a breach of the capital and of the credit threshold, each under (c)(1)(i)", async () => {
    const results = await runSuite(bot(ALL));
    const capital = results.find((r) => r.name === "capital_threshold")!;
    const credit = results.find((r) => r.name === "credit_threshold")!;
    expect(capital.article).toBe("RTS 6 Art. 15; SEC 15c3-5 (c)(1)(i)");
    expect(credit.article).toBe("RTS 6 Art. 15; SEC 15c3-5 (c)(1)(i)");
    expect(capital.observed).toMatch(/^refused by capital_threshold: limit 40000, value 80000/);
    expect(credit.observed).toMatch(/^refused by credit_threshold: limit 5000, value 1\d{4}/);
    // The order value case is an erroneous-order control, not a capital threshold.
    const value = results.find((r) => r.name === "max_order_notional")!;
    expect(value.article).toBe("RTS 6 Art. 15(1)(b); SEC 15c3-5 (c)(1)(ii)");
  });

  it("fails the threshold cases of a bot without thresholds, naming each setting", async () => {
    const results = await runSuite(bot({ ...ALL, capitalLimit: 0, creditLimit: 0 }));
    const failed = results.filter((r) => !r.passed);
    expect(failed.map((r) => r.name)).toEqual(["capital_threshold", "credit_threshold"]);
    expect(failed[0]!.observed).toMatch(/risk\.capital_limit is not set/);
    expect(failed[1]!.observed).toMatch(/risk\.credit_limit is not set/);
  });

  it("fails a throttle case whose burst was not refused", async () => {
    const results = await runSuite(bot({ ...ALL, maxOrdersPerWindow: 0, throttleWindowS: 0 }));
    const r = results.find((x) => x.name === "message_throttle")!;
    expect(r.passed).toBe(false);
    expect(r.observed).toMatch(/max_orders_per_window/);
  });

  it("judges a bot of a universe on its portfolio: the capital threshold across symbols, every symbol drained", async () => {
    const universe = { ...bot(ALL), symbols: ["AAPL", "MSFT", "GOOG"] };
    const suite = suiteFor(universe);
    expect(suite.map((c) => c.name)).toEqual(CONFORMANCE_SUITE.map((c) => c.name));
    const results = [];
    for (const c of suite) results.push(await c.run(universe));
    for (const r of results) expect(r.passed, `${r.name}: ${r.observed}`).toBe(true);
    const capital = results.find((r) => r.name === "capital_threshold")!;
    // Each symbol alone (30,000) is under the limit: the portfolio's gross value is refused.
    expect(capital.observed).toMatch(
      /^AAPL placed; MSFT refused by capital_threshold: limit 40000, value 60000/,
    );
    const drain = results.find((r) => r.name === "kill_switch_drain")!;
    expect(drain.observed).toMatch(/\(3 symbols ordered\)/);
    expect(drain.evidence.final_positions).toBeDefined();
    // Left off, the threshold fails naming its setting, as for one symbol.
    const off = { ...universe, limits: riskLimitsFrom({ ...ALL, capitalLimit: 0 }) };
    const r = await suiteFor(off)
      .find((c) => c.name === "capital_threshold")!
      .run(off);
    expect(r.passed).toBe(false);
    expect(r.observed).toMatch(/risk\.capital_limit is not set/);
  });
});
