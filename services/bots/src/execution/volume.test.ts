import { describe, expect, it } from "vitest";
import { allocateBars } from "../engine/bars.js";
import { runBacktest } from "../engine/event-engine.js";
import { engineSettingsFrom } from "../engine/settings.js";
import type { Strategy } from "../engine/strategies/strategy.js";
import type { ExecutionEvent } from "./events.js";
import { SimulatedBroker, VOLUME_CANCEL } from "./simulated-broker.js";

function broker(maxVolumeParticipation?: number) {
  const events: ExecutionEvent[] = [];
  const costs = {
    feeBps: 0,
    slippageBps: 0,
    ...(maxVolumeParticipation ? { maxVolumeParticipation } : {}),
  };
  const b = new SimulatedBroker("BTC", { cash: 1e6, units: 0 }, costs, {
    event: (e) => events.push(e),
  });
  return { b, events };
}

describe("fills within a bar's volume", () => {
  it("fills a market order up to the share of the bar's volume and cancels the rest", () => {
    const { b, events } = broker(0.1);
    const order = b.submit("buy", 50);
    b.onBar(100, 101, 99, 300);
    expect(b.units).toBe(30);
    expect(b.openOrders).toHaveLength(0);
    const filled = events.find((e) => e.type === "order_filled")!;
    expect(filled.data).toMatchObject({ order_id: order.id, units: 30, unfilled: 20 });
    const cancelled = events.find((e) => e.type === "order_cancelled")!;
    expect(cancelled.data.order_id).toBe(order.id);
    expect(cancelled.data).toMatchObject({ reason: expect.stringContaining(VOLUME_CANCEL) });
    expect(cancelled.data).toMatchObject({ reason: expect.stringContaining("20 of 50 units") });
  });

  it("shares one bar's volume between its orders in placement order", () => {
    const { b, events } = broker(0.5);
    b.submit("sell", 30);
    const second = b.submit("buy", 30);
    b.onBar(100, 100, 100, 80);
    // The first takes 30 of the 40 the bar allows, the second the last 10.
    expect(b.units).toBe(-30 + 10);
    const fills = events.filter((e) => e.type === "order_filled").map((e) => e.data.units);
    expect(fills).toEqual([30, 10]);
    expect(events.some((e) => e.type === "order_cancelled" && e.data.order_id === second.id)).toBe(
      true,
    );
  });

  it("keeps a limit order's rest working at its price", () => {
    const { b } = broker(0.1);
    const order = b.submit("buy", 50, "limit", 99.5);
    b.onBar(100, 101, 99, 200);
    expect(b.units).toBe(20);
    expect(b.openOrders.map((o) => [o.id, o.units])).toEqual([[order.id, 30]]);
    b.onBar(100, 101, 99, 1000);
    expect(b.units).toBe(50);
    expect(b.openOrders).toHaveLength(0);
  });

  it("fills in full when the bar reports no volume or no share is set", () => {
    const none = broker(0.1);
    none.b.submit("buy", 50);
    none.b.onBar(100, 100, 100, 0);
    expect(none.b.units).toBe(50);
    const unset = broker();
    unset.b.submit("buy", 50);
    unset.b.onBar(100, 100, 100, 10);
    expect(unset.b.units).toBe(50);
  });
});

describe("a backtest where volume binds", () => {
  // Thin bars: 100,000 of cash buys 1,000 units at 100, but each bar trades only 400.
  const bars = allocateBars(4);
  for (let i = 0; i < 4; i++) {
    bars.time[i] = Date.UTC(2026, 0, 1 + i);
    bars.open[i] = bars.high[i] = bars.low[i] = bars.close[i] = 100;
    bars.volume[i] = 400;
  }
  const alwaysLong: Strategy = { onBar: () => 1 };

  it("a bot's default (the whole bar) fills 400 of the 1,000 units and says why", () => {
    const events: ExecutionEvent[] = [];
    const settings = engineSettingsFrom({});
    expect(settings.maxVolumeParticipation).toBe(1);
    const m = runBacktest(bars, alwaysLong, settings, { onEvent: (e) => events.push(e) });
    const fills = events.filter((e) => e.type === "order_filled");
    expect(fills.map((e) => e.data.units)).toEqual([400]);
    expect(fills[0]!.data.unfilled).toBe(600);
    expect(events.filter((e) => e.type === "order_cancelled")).toHaveLength(1);
    // The rest is not chased: the position stays at 400 until the strategy changes its mind.
    expect(m.exposure).toBeGreaterThan(0);
    const last = events.filter((e) => e.type === "position_changed").at(-1)!;
    expect(last.data.units).toBe(400);
  });

  it("a share of 10 % takes 40 units, and a spec asking for it is honoured", () => {
    const events: ExecutionEvent[] = [];
    const settings = engineSettingsFrom({ maxVolumeParticipation: 0.1 });
    runBacktest(bars, alwaysLong, settings, { onEvent: (e) => events.push(e) });
    expect(events.filter((e) => e.type === "order_filled").map((e) => e.data.units)).toEqual([40]);
  });

  it("thick bars fill the whole order, as before the rule", () => {
    const thick = { ...bars, volume: new Float64Array(4).fill(1e6) };
    const events: ExecutionEvent[] = [];
    runBacktest(thick, alwaysLong, engineSettingsFrom({ maxVolumeParticipation: 0.1 }), {
      onEvent: (e) => events.push(e),
    });
    const fills = events.filter((e) => e.type === "order_filled");
    expect(fills.map((e) => e.data.units)).toEqual([1000]);
    expect(fills[0]!.data.unfilled).toBeUndefined();
  });
});
