import { describe, expect, it } from "vitest";
import { riskLimitsFrom } from "../execution/risk-controls/index.js";
import type { BotUnderTest } from "./compliance-case.js";
import { CONFORMANCE_SUITE } from "./conformance-suite.js";

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

  it("fails a throttle case whose burst was not refused", async () => {
    const results = await runSuite(bot({ ...ALL, maxOrdersPerWindow: 0, throttleWindowS: 0 }));
    const r = results.find((x) => x.name === "message_throttle")!;
    expect(r.passed).toBe(false);
    expect(r.observed).toMatch(/max_orders_per_window/);
  });
});
