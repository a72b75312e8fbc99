import { describe, expect, it } from "vitest";
import type { ExecutionEvent } from "../events.js";
import type { PreTradeContext } from "../pre-trade.js";
import type { OrderIntent } from "../sizing.js";
import {
  capitalThreshold,
  CONTROL,
  creditThreshold,
  duplicateOrder,
  fleetCapitalThreshold,
  fleetCreditThreshold,
  maxOrderNotional,
  maxOrderUnits,
  messageThrottle,
  priceCollar,
  RecentOrders,
  restrictedInstrument,
  RiskGuard,
  riskLimitsFrom,
  type RiskContext,
} from "./index.js";

const buy = (units: number): OrderIntent => ({ side: "buy", units, closes: false });
const sell = (units: number, closes = false): OrderIntent => ({ side: "sell", units, closes });
const base: PreTradeContext = {
  symbol: "BTC-USD",
  price: 100,
  equity: 10_000,
  cash: 10_000,
  position: 0,
  accepted: 0,
  time: 1_000_000,
  reference: 100,
};
const ctx = (over: Partial<RiskContext> = {}): RiskContext => ({
  ...base,
  startEquity: 10_000,
  recent: new RecentOrders(3_600_000),
  fleet: { exposure: 0, loss: 0 },
  ...over,
});

describe("order size controls", () => {
  it("refuses an order over the maximum volume, naming limit and value", () => {
    const l = riskLimitsFrom({ maxOrderUnits: 10 });
    expect(maxOrderUnits(buy(10), ctx(), l)).toBeNull();
    expect(maxOrderUnits(buy(12), ctx(), l)).toMatchObject({
      control: CONTROL.maxOrderUnits,
      limit: 10,
      value: 12,
    });
    expect(maxOrderUnits(buy(1e9), ctx(), riskLimitsFrom({}))).toBeNull();
  });

  it("refuses an order over the maximum value at the price it was sized at", () => {
    const l = riskLimitsFrom({ maxOrderNotional: 1_000 });
    expect(maxOrderNotional(buy(10), ctx(), l)).toBeNull();
    expect(maxOrderNotional(buy(11), ctx(), l)).toMatchObject({
      control: CONTROL.maxOrderNotional,
      limit: 1_000,
      value: 1_100,
    });
  });
});

describe("price collar", () => {
  const l = riskLimitsFrom({ priceCollarPct: 2 });
  it("passes within the collar and without a reference, refuses outside it", () => {
    expect(priceCollar(buy(1), ctx({ price: 102 }), l)).toBeNull();
    expect(priceCollar(buy(1), ctx({ price: 150, reference: NaN }), l)).toBeNull();
    const r = priceCollar(buy(1), ctx({ price: 97 }), l);
    expect(r).toMatchObject({ control: CONTROL.priceCollar, limit: 2 });
    expect(r && Number(r.value)).toBeCloseTo(3, 10);
  });
});

describe("capital and credit thresholds", () => {
  it("caps the position value after the order, but never a reduction", () => {
    const l = riskLimitsFrom({ capitalLimit: 5_000 });
    expect(capitalThreshold(buy(50), ctx(), l)).toBeNull();
    expect(capitalThreshold(buy(51), ctx(), l)).toMatchObject({ limit: 5_000, value: 5_100 });
    // Holding 80 already (over the limit): selling 30 reduces and passes; buying 1 does not.
    expect(capitalThreshold(sell(30), ctx({ position: 80 }), l)).toBeNull();
    expect(capitalThreshold(buy(1), ctx({ position: 80 }), l)).toMatchObject({ value: 8_100 });
  });

  it("stops adding risk once the loss passes the credit threshold; closes still pass", () => {
    const l = riskLimitsFrom({ creditLimit: 500 });
    expect(creditThreshold(buy(1), ctx({ equity: 9_600 }), l)).toBeNull();
    expect(creditThreshold(buy(1), ctx({ equity: 9_400 }), l)).toMatchObject({
      control: CONTROL.creditThreshold,
      limit: 500,
      value: 600,
    });
    expect(creditThreshold(sell(10, true), ctx({ equity: 9_400, position: 10 }), l)).toBeNull();
  });

  it("judges the fleet on the sum with the rest of the fleet", () => {
    const l = riskLimitsFrom({}, { capitalLimit: 10_000, creditLimit: 1_000 });
    const fleet = { exposure: 8_000, loss: 700 };
    expect(fleetCapitalThreshold(buy(20), ctx({ fleet }), l)).toBeNull();
    expect(fleetCapitalThreshold(buy(21), ctx({ fleet }), l)).toMatchObject({
      control: CONTROL.fleetCapitalThreshold,
      value: 10_100,
    });
    expect(fleetCreditThreshold(buy(1), ctx({ fleet, equity: 9_800 }), l)).toBeNull();
    expect(fleetCreditThreshold(buy(1), ctx({ fleet, equity: 9_600 }), l)).toMatchObject({
      control: CONTROL.fleetCreditThreshold,
      limit: 1_000,
      value: 1_100,
    });
  });
});

describe("restricted instruments", () => {
  const l = riskLimitsFrom({ restrictedSymbols: ["BTC-USD", "XYZ"] });
  it("refuses adding exposure in a listed symbol and lets an unwind through", () => {
    expect(restrictedInstrument(buy(1), ctx(), l)).toMatchObject({
      control: CONTROL.restrictedInstrument,
      value: "BTC-USD",
      limit: "BTC-USD,XYZ",
    });
    expect(restrictedInstrument(sell(5, true), ctx({ position: 5 }), l)).toBeNull();
    expect(restrictedInstrument(buy(1), ctx({ symbol: "ETH-USD" }), l)).toBeNull();
  });
});

describe("message throttle and duplicates, on the context's clock", () => {
  const minute = 60_000;
  it("counts the orders of the window that ends at the bar's time", () => {
    const l = riskLimitsFrom({ maxOrdersPerWindow: 2, throttleWindowS: 60 });
    const recent = new RecentOrders(minute);
    const t0 = 1_000_000;
    recent.add(t0, "buy", 1, 100);
    expect(messageThrottle(buy(1), ctx({ recent, time: t0 + 1 }), l)).toBeNull();
    recent.add(t0 + 1, "sell", 1, 100);
    expect(messageThrottle(buy(1), ctx({ recent, time: t0 + 2 }), l)).toMatchObject({
      control: CONTROL.messageThrottle,
      limit: 2,
      value: 3,
    });
    // A minute after the first order it has left the window.
    expect(messageThrottle(buy(1), ctx({ recent, time: t0 + minute }), l)).toBeNull();
  });

  it("finds the same side, size and price within the window and tolerance", () => {
    const recent = new RecentOrders(minute);
    recent.add(1_000_000, "buy", 10, 100);
    const exact = riskLimitsFrom({ duplicateWindowS: 60 });
    expect(duplicateOrder(buy(10), ctx({ recent, time: 1_030_000 }), exact)).toMatchObject({
      control: CONTROL.duplicateOrder,
      limit: 60,
      value: 30,
    });
    expect(duplicateOrder(sell(10), ctx({ recent, time: 1_030_000 }), exact)).toBeNull();
    expect(duplicateOrder(buy(10.5), ctx({ recent, time: 1_030_000 }), exact)).toBeNull();
    expect(duplicateOrder(buy(10), ctx({ recent, time: 1_000_000 + minute }), exact)).toBeNull();
    const loose = riskLimitsFrom({ duplicateWindowS: 60, duplicateTolerancePct: 10 });
    expect(duplicateOrder(buy(10.5), ctx({ recent, time: 1_030_000 }), loose)).not.toBeNull();
  });

  it("keeps only the horizon's orders", () => {
    const recent = new RecentOrders(1_000);
    for (let t = 0; t < 10_000; t += 10) recent.add(t, "buy", 1, 1);
    expect(recent.size).toBeLessThanOrEqual(101);
    expect(recent.time.length).toBeLessThan(400);
  });
});

describe("RiskGuard", () => {
  it("disables the bot on a throttle breach, records it, and refuses everything until re-enabled", () => {
    const events: ExecutionEvent[] = [];
    const guard = new RiskGuard({
      limits: riskLimitsFrom({ maxOrdersPerWindow: 1, throttleWindowS: 60 }),
      startEquity: 10_000,
      emit: (e) => events.push(e),
    });
    expect(guard.check(buy(1), base)).toEqual({ accept: true });
    guard.accepted(buy(1), base);
    const breach = guard.check(sell(1), { ...base, time: base.time + 1 });
    expect(breach).toMatchObject({ control: CONTROL.messageThrottle, limit: 1, value: 2 });
    expect(events).toEqual([
      {
        type: "risk_disabled",
        data: expect.objectContaining({ control: CONTROL.messageThrottle, limit: 1, value: 2 }),
      },
    ]);
    const later = { ...base, time: base.time + 3_600_000 };
    expect(guard.check(buy(1), later)).toMatchObject({ control: CONTROL.riskDisabled });
    guard.reEnable();
    expect(guard.check(buy(1), later)).toEqual({ accept: true });
  });

  it("runs the controls in order, the first refusal winning", () => {
    const guard = new RiskGuard({
      limits: riskLimitsFrom({ restrictedSymbols: ["BTC-USD"], maxOrderUnits: 1 }),
      startEquity: 10_000,
    });
    expect(guard.check(buy(5), base)).toMatchObject({ control: CONTROL.restrictedInstrument });
  });
});
