import { describe, expect, it } from "vitest";
import { OrderLedger, type LedgerReport } from "./order-ledger.js";
import { Records } from "./venue-test-support.js";

const order = {
  symbol: "X",
  side: "buy" as const,
  kind: "limit" as const,
  units: 3,
  limitPrice: 10,
};

function ledger() {
  const records = new Records();
  const l = new OrderLedger(records.report, 1_000);
  l.add({ clientId: "a", ...order });
  return { l, records };
}

const report = (r: Partial<LedgerReport>): LedgerReport => ({
  clientId: "a",
  state: "working",
  filled: 0,
  averagePrice: 0,
  ...r,
});

describe("the order ledger: venue reports folded into the kernel's records, each once", () => {
  it("books a fill heard twice, and one heard only as a later cumulative quantity, once", () => {
    const { l, records } = ledger();
    l.apply(report({ state: "working" }));
    l.apply(
      report({
        state: "partially_filled",
        filled: 1,
        averagePrice: 10,
        lastUnits: 1,
        lastPrice: 10,
      }),
    );
    l.apply(
      report({
        state: "partially_filled",
        filled: 1,
        averagePrice: 10,
        lastUnits: 1,
        lastPrice: 10,
      }),
    );
    // The second fill's own report was lost; a status answer carries the cumulative figures.
    l.apply(report({ state: "filled", filled: 3, averagePrice: 9.5 }));
    expect(records.of("order_filled")).toEqual([
      { order_id: "a", side: "buy", units: 1, price: 10, fee: 0, unfilled: 2 },
      { order_id: "a", side: "buy", units: 2, price: 9.25, fee: 0 },
    ]);
    expect(l.position("X")).toBe(3);
    expect(l.cash).toBe(1_000 - 28.5);
    expect(l.get("a")!.state).toBe("filled");
  });

  it("never moves an order backwards: a late New after a fill, a fill after a cancel", () => {
    const { l, records } = ledger();
    l.apply(
      report({
        state: "partially_filled",
        filled: 1,
        averagePrice: 10,
        lastUnits: 1,
        lastPrice: 10,
      }),
    );
    l.apply(report({ state: "working" }));
    expect(l.get("a")!.state).toBe("partially_filled");
    l.apply(report({ state: "cancelled", filled: 1, averagePrice: 10 }));
    l.apply(report({ state: "partially_filled", filled: 1, averagePrice: 10 }));
    expect(l.get("a")!.state).toBe("cancelled");
    expect(records.events.map((e) => e.type)).toEqual([
      "order_placed",
      "order_filled",
      "position_changed",
      "order_cancelled",
    ]);
  });

  it("a status that says filled before the fill is booked does not run ahead of the quantity", () => {
    const { l } = ledger();
    l.apply(report({ state: "filled", filled: 2, averagePrice: 10 }));
    expect(l.get("a")).toMatchObject({ state: "partially_filled", filled: 2 });
  });

  it("refuses a client id sent twice and ignores reports of orders it never sent", () => {
    const { l, records } = ledger();
    expect(() => l.add({ clientId: "a", ...order })).toThrow(/already sent/);
    expect(l.apply(report({ clientId: "stranger", filled: 5, averagePrice: 1 }))).toBeUndefined();
    expect(records.events).toEqual([]);
  });

  it("after a lost session every open order is unknown until the venue says otherwise", () => {
    const { l } = ledger();
    l.add({ clientId: "done", ...order });
    l.apply(report({ clientId: "done", state: "cancelled" }));
    expect(l.markUnknown()).toEqual(["a"]);
    expect(l.get("a")!.state).toBe("unknown");
    l.apply(report({ state: "working" }));
    expect(l.get("a")!.state).toBe("working");
  });

  it("refuses before sending an order that would break a FIX frame or is not a real quantity", () => {
    const { l } = ledger();
    const bad = [
      { clientId: "x\u000135=D", why: /order id/ },
      { clientId: "", why: /order id/ },
      { clientId: "y".repeat(65), why: /order id/ },
      { clientId: "ok", symbol: "BTC\u0000", why: /symbol/ },
      { clientId: "ok", units: Number.NaN, why: /units/ },
      { clientId: "ok", units: Infinity, why: /units/ },
      { clientId: "ok", units: -1, why: /units/ },
      { clientId: "ok", limitPrice: 0, why: /limit price/ },
    ];
    for (const { why, ...o } of bad) expect(() => l.add({ ...order, ...o })).toThrow(why);
    expect(l.open().map((s) => s.clientId)).toEqual(["a"]);
  });

  it("refuses reports that cannot be true instead of booking them, and keeps them for a person", () => {
    const { l, records } = ledger();
    l.apply(report({ state: "filled", filled: 1e12, averagePrice: 10 }));
    l.apply(report({ state: "partially_filled", filled: Number.NaN, averagePrice: 10 }));
    l.apply(report({ state: "partially_filled", filled: 1, averagePrice: Infinity }));
    l.apply(report({ state: "partially_filled", filled: 1, averagePrice: -5 }));
    expect(records.events).toEqual([]);
    expect(l.position("X")).toBe(0);
    expect(l.cash).toBe(1_000);
    expect(l.anomalies).toEqual([
      "a: filled 1000000000000 of an order of 3 (an overfill)",
      "a: a quantity or price that is not a finite number",
      "a: a quantity or price that is not a finite number",
      "a: a negative quantity or price",
    ]);
  });
});
