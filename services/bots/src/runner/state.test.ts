import { describe, expect, it } from "vitest";
import type { RunnerEvent } from "./events.js";
import { foldEvents, workingOrders } from "./state.js";

const fold = (events: RunnerEvent[]) =>
  foldEvents(
    events.map((e, i) => ({ seq: i + 1, type: e.type, occurredAt: new Date(0), data: e.data })),
  );

describe("the working orders a resumed session takes over", () => {
  it("keep their kind and prices, and a limit order filled in part keeps only its rest", () => {
    const state = fold([
      {
        type: "session_started",
        data: { task_id: "t", version: 1, symbol: "X", initial_cash: 1000, data_source: "s" },
      },
      {
        type: "order_placed",
        data: { order_id: "t-o1", side: "buy", kind: "limit", units: 10, limit_price: 99.5 },
      },
      {
        type: "order_placed",
        data: { order_id: "t-o2", side: "sell", kind: "stop", units: 3, stop_price: 90 },
      },
      { type: "order_placed", data: { order_id: "t-o3", side: "buy", kind: "market", units: 1 } },
      {
        type: "order_filled",
        data: { order_id: "t-o1", side: "buy", units: 4, price: 99.5, fee: 0, unfilled: 6 },
      },
      {
        type: "order_filled",
        data: { order_id: "t-o3", side: "buy", units: 1, price: 100, fee: 0 },
      },
    ] as RunnerEvent[]);
    expect(workingOrders(state.openOrders)).toEqual([
      { id: "t-o1", side: "buy", kind: "limit", units: 6, limitPrice: 99.5 },
      { id: "t-o2", side: "sell", kind: "stop", units: 3, stopPrice: 90 },
    ]);
  });

  it("reads an order written before orders had kinds as a market order", () => {
    const state = fold([
      { type: "order_placed", data: { order_id: "t-o1", side: "sell", units: 2 } },
    ] as unknown as RunnerEvent[]);
    expect(workingOrders(state.openOrders)).toEqual([
      { id: "t-o1", side: "sell", kind: "market", units: 2 },
    ]);
  });
});
