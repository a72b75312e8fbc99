import { PRE_TRADE_CONTROLS } from "@svc/lib/controls";
import { describe, expect, it } from "vitest";
import { CONTROL, RISK_CONTROLS, riskLimitsFrom } from "../execution/risk-controls/index.js";
import { CONTROLS } from "../execution/risk-controls/risk-guard.js";
import { caseOf } from "./control-cases.js";
import { CONFORMANCE_SUITE } from "./conformance-suite.js";

describe("the one registry of pre-trade controls", () => {
  it("gives every control a conformance case of its name, citing the control's articles", () => {
    const suite = new Map(CONFORMANCE_SUITE.map((c) => [c.name, c]));
    const without = RISK_CONTROLS.filter((c) => !suite.has(c.id)).map((c) => c.id);
    expect(without, "controls with no conformance case").toEqual([]);
    for (const c of RISK_CONTROLS) expect(suite.get(c.id)!.article).toBe(c.articles);
  });

  it("tells a control with neither a crafted breach nor a case of its own apart, so the suite cannot silently lack it", () => {
    const [first] = RISK_CONTROLS;
    const { breach: _dropped, ...bare } = first!;
    expect(caseOf(first!)).toBeDefined();
    expect(caseOf({ ...bare, id: CONTROL.maxOrderUnits })).toBeUndefined();
  });

  it("gives every control a stress check: an order-by-order witness or a judgement over the run", () => {
    for (const c of RISK_CONTROLS) {
      const s = c.stress;
      expect("witness" in s || s.overRun.length > 0, c.id).toBe(true);
    }
  });

  it("is the list the risk guard runs and the list lib/controls describes, in the same order", () => {
    expect(CONTROLS).toEqual(RISK_CONTROLS.map((c) => c.refuse));
    expect(RISK_CONTROLS.map((c) => c.id)).toEqual(PRE_TRADE_CONTROLS.map((c) => c.id));
    const named = Object.values(CONTROL).filter((n) => n !== CONTROL.riskDisabled);
    expect([...named].sort()).toEqual(RISK_CONTROLS.map((c) => c.id).sort());
  });

  it("judges a fleet threshold's case at the fleet's limit, or at a trial limit when the fleet sets none", async () => {
    const inFleet = (fleet?: { capitalLimit?: number; creditLimit?: number }) => ({
      slug: "reg-bot",
      fleet: "desk",
      symbol: "BTC-USD",
      costs: { feeBps: 10, slippageBps: 5, positionSize: 0.5 },
      initialCash: 100_000,
      limits: riskLimitsFrom({}, fleet),
    });
    const cases = CONFORMANCE_SUITE.filter((c) => c.name.startsWith("fleet_"));
    expect(cases.map((c) => c.name)).toEqual(["fleet_capital_threshold", "fleet_credit_threshold"]);
    const set = await Promise.all(
      cases.map((c) => c.run(inFleet({ capitalLimit: 50_000, creditLimit: 20_000 }))),
    );
    expect(set.map((r) => [r.passed, r.observed.split(":")[0]])).toEqual([
      [true, "refused by fleet_capital_threshold"],
      [true, "refused by fleet_credit_threshold"],
    ]);
    expect(set[0]!.observed).toMatch(/limit 50000, value 50100/);
    expect(set[1]!.observed).toMatch(/limit 20000, value 40000/);
    const unset = await Promise.all(cases.map((c) => c.run(inFleet())));
    expect(unset.map((r) => r.passed)).toEqual([true, true]);
    expect(unset[0]!.observed).toMatch(
      /^the fleet's capital_limit is not set; tried at limit 1000000: refused by fleet_capital_threshold/,
    );
  });
});
