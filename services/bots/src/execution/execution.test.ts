import { describe, expect, it } from "vitest";
import type { ExecutionEvent } from "./events.js";
import { OrderPipeline } from "./order-pipeline.js";
import type { PreTradeCheck } from "./pre-trade.js";
import { SimulatedBroker } from "./simulated-broker.js";
import { ordersForTarget } from "./sizing.js";

const costs = { feeBps: 10, slippageBps: 50 };
function book(cash = 1000, units = 0, checks: PreTradeCheck[] = []) {
  const events: ExecutionEvent[] = [];
  const broker = new SimulatedBroker("BTC", { cash, units }, costs, {
    event: (e) => events.push(e),
  });
  const pipeline = new OrderPipeline(broker, { positionSize: 0.5 }, checks, (e) => events.push(e));
  return { broker, pipeline, events };
}

describe("the sizing rule", () => {
  it("sizes a target as a fraction of equity at the decision's close", () => {
    expect(ordersForTarget(1, 0, 1000, 100, { positionSize: 0.5 })).toEqual([
      { side: "buy", units: 5, closes: false },
    ]);
    expect(ordersForTarget(0.5, 5, 1000, 100, { positionSize: 1 })).toEqual([]);
    expect(ordersForTarget(0.2, 5, 1000, 100, { positionSize: 1 })).toEqual([
      { side: "sell", units: 3, closes: false },
    ]);
  });

  it("closes a position before it flips, and never calls a close dust", () => {
    expect(ordersForTarget(-1, 5, 1000, 100, { positionSize: 0.5 })).toEqual([
      { side: "sell", units: 5, closes: true },
      { side: "sell", units: 5, closes: false },
    ]);
    expect(ordersForTarget(0, 1e-6, 1000, 100, { positionSize: 1 })).toEqual([
      { side: "sell", units: 1e-6, closes: true },
    ]);
  });

  it("does not send dust: a change under 0.1% of equity", () => {
    // 0.0009 of equity is dust, 0.0011 is a decision.
    expect(ordersForTarget(0.5009, 5, 1000, 100, { positionSize: 1 })).toEqual([]);
    expect(ordersForTarget(0.5011, 5, 1000, 100, { positionSize: 1 })).toHaveLength(1);
  });
});

describe("the order pipeline and the simulated broker", () => {
  it("sends at the close, fills at the next open against the trader, with a fee", () => {
    const { broker, pipeline, events } = book();
    pipeline.decide(1, 100);
    expect(broker.openOrders).toHaveLength(1);
    broker.onBar(102, 103, 101);
    // 5 units sized at the close of 100, filled at 102 * 1.005 = 102.51, fee 0.1% of 512.55.
    expect(events.map((e) => e.type)).toEqual(["order_placed", "order_filled", "position_changed"]);
    expect(events[1]!.data).toMatchObject({ units: 5 });
    expect((events[1]!.data as { price: number }).price).toBeCloseTo(102.51, 12);
    expect((events[1]!.data as { fee: number }).fee).toBeCloseTo(0.51255, 12);
    expect(broker.units).toBe(5);
    expect(broker.cash).toBeCloseTo(1000 - 512.55 - 0.51255, 9);
  });

  it("sends nothing while the target stays, however the price moves", () => {
    const { pipeline, broker, events } = book();
    pipeline.decide(1, 100);
    broker.onBar(100, 100, 100);
    for (const price of [150, 60, 300]) {
      pipeline.decide(1, price);
      broker.onBar(price, price, price);
    }
    expect(events.filter((e) => e.type === "order_placed")).toHaveLength(1);
  });

  it("runs every order past the pre-trade checks, which refuse with a reason", () => {
    const noShorts: PreTradeCheck = {
      name: "no_shorts",
      check: (order, ctx) =>
        order.side === "sell" && ctx.position + ctx.accepted - order.units < 0
          ? { accept: false, reason: "this account may not go short" }
          : { accept: true },
    };
    // Long 5 at 100 with 1000 cash: equity 1500, so short half of it is 7.5 units.
    const { broker, pipeline, events } = book(1000, 5, [noShorts]);
    pipeline.decide(-1, 100);
    expect(events).toEqual([
      { type: "order_placed", data: { order_id: "o1", side: "sell", kind: "market", units: 5 } },
      {
        type: "order_rejected",
        data: {
          side: "sell",
          units: 7.5,
          check: "no_shorts",
          reason: "this account may not go short",
        },
      },
    ]);
    broker.onBar(100, 100, 100);
    expect(broker.units).toBe(0);
  });

  it("fills a limit order only when the bar reaches its price, and cancels", () => {
    const { broker, events } = book();
    const buy = broker.submit("buy", 1, "limit", 95);
    broker.submit("sell", 1, "limit", 120);
    broker.onBar(100, 110, 96);
    expect(broker.openOrders.map((o) => o.id)).toEqual(["o1", "o2"]);
    broker.onBar(97, 99, 90);
    expect(broker.openOrders.map((o) => o.id)).toEqual(["o2"]);
    expect(events.find((e) => e.type === "order_filled")!.data).toMatchObject({
      order_id: buy.id,
      price: 95,
    });
    broker.cancelAll("halt");
    expect(events.at(-1)).toEqual({
      type: "order_cancelled",
      data: { order_id: "o2", reason: "halt" },
    });
    expect(broker.openOrders).toHaveLength(0);
  });
});
