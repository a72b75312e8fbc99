import { describe, expect, it } from "vitest";
import { barsAt } from "../../engine/bars.js";
import { BacktestRun } from "../../engine/event-engine.js";
import { resolveStrategy } from "../../engine/strategies/registry.js";
import { generateBars } from "../../engine/synthetic-source.js";
import type { ExecutionEvent } from "../events.js";
import { riskLimitsFrom } from "../risk-controls/index.js";
import {
  BuiltInHost,
  createKernel,
  type AsyncStrategyHost,
  type KernelFill,
  type KernelOptions,
  type StrategyHost,
} from "./index.js";

const bars = generateBars({ seed: 11, count: 2_000 });
const costs = { feeBps: 5, slippageBps: 3, positionSize: 0.5 };
const { family, params } = resolveStrategy("ma_crossover", {
  fast: 5,
  slow: 20,
  allow_short: true,
});

function kernelOf(host: KernelOptions["host"], more: Partial<KernelOptions> = {}) {
  const events: ExecutionEvent[] = [];
  const kernel = createKernel({
    symbol: "BTC-USD",
    account: { cash: 100_000, units: 0 },
    costs,
    onEvent: (e) => events.push(e),
    host,
    ...more,
  });
  return { kernel, events };
}

describe("the execution kernel", () => {
  it("sends the same orders whether the host runs ahead to its decisions or is asked bar by bar, as a backtest does", () => {
    const ahead = kernelOf(new BuiltInHost(family.create(params)));
    ahead.kernel.run(bars, 0, bars.length);
    const stepped = kernelOf(new BuiltInHost(family.create(params)));
    let reference = NaN;
    for (let t = 0; t < bars.length; t++) {
      stepped.kernel.step(bars, t, reference);
      reference = bars.close[t]!;
    }
    const backtest: ExecutionEvent[] = [];
    const run = new BacktestRun(
      family.create(params),
      { ...costs, initialCash: 100_000 },
      {
        onEvent: (e) => backtest.push(e),
        symbol: "BTC-USD",
      },
    );
    run.feed(bars);
    expect(ahead.events.length).toBeGreaterThan(50);
    expect(ahead.events).toEqual(stepped.events);
    // A backtest's order records name the symbol as well (namingSymbol); nothing else differs.
    const named = ahead.events.map((e) =>
      e.type.startsWith("order_") ? { ...e, data: { ...e.data, symbol: "BTC-USD" } } : e,
    );
    expect(named).toEqual(backtest);
  });

  it("gives a backtest the same run through a strategy host as through a built-in family's fused loop", () => {
    const settings = { ...costs, initialCash: 100_000 };
    const fused = new BacktestRun(family.create(params), settings);
    const hosted = new BacktestRun(new BuiltInHost(family.create(params)), settings);
    for (let from = 0; from < bars.length; from += 700) {
      const chunk = barsAt(bars, from, Math.min(bars.length, from + 700));
      fused.feed(chunk);
      hosted.feed(chunk);
    }
    const a = fused.finish();
    expect(a.trades).toBeGreaterThan(20);
    expect(hosted.finish()).toEqual(a);
  });

  it("drives an asynchronous host (the sandbox's shape) to the same orders as the synchronous one", async () => {
    const sync = kernelOf(new BuiltInHost(family.create(params)));
    sync.kernel.run(bars, 0, bars.length);
    const inner = new BuiltInHost(family.create(params));
    let calls = 0;
    const remote: AsyncStrategyHost = {
      async decide(b, from, to, view, out) {
        calls++;
        await new Promise((r) => setImmediate(r));
        return inner.decide(b, from, to, view, out);
      },
    };
    const async = kernelOf(remote);
    await async.kernel.runAsync(bars, 0, bars.length);
    expect(async.events).toEqual(sync.events);
    // One round trip per decision, not per bar.
    const placed = sync.events.filter((e) => e.type === "order_placed").length;
    expect(calls).toBeLessThan(placed + 2);
    expect(calls).toBeLessThan(bars.length / 10);
  });

  it("sends a host's explicit orders through the risk controls, fills a limit order when the bar reaches it, triggers a stop order the bar trades through, and tells the host of its fills", () => {
    const fills: KernelFill[] = [];
    const price = bars.close[0]!;
    const host: StrategyHost = {
      decide(_b, from, _to, _view, out) {
        if (from === 0) {
          out.order({ side: "buy", units: 1_000, kind: "market" }); // over max_order_units
          out.order({ side: "buy", units: 2, kind: "limit", limitPrice: price * 2 });
          // A sell stop above the market: the next bar opens through it, a market sell there.
          out.order({ side: "sell", units: 1, kind: "stop", stopPrice: price * 2 });
          // One under the market that these bars never reach keeps working.
          out.order({ side: "sell", units: 1, kind: "stop", stopPrice: price / 2 });
          return 0;
        }
        return _to;
      },
      fills: (f) => fills.push(...f),
    };
    const { kernel, events } = kernelOf(host, {
      risk: { limits: riskLimitsFrom({ maxOrderUnits: 10 }), startEquity: 100_000 },
    });
    kernel.run(bars, 0, 3);
    const rejected = events.filter((e) => e.type === "order_rejected").map((e) => e.data.check);
    expect(rejected).toEqual(["max_order_units"]);
    expect(kernel.venue.units).toBe(1);
    expect(fills).toEqual([
      expect.objectContaining({ side: "buy", units: 2, price: bars.open[1], orderId: "o1" }),
      expect.objectContaining({ side: "sell", units: 1, orderId: "o2" }),
    ]);
    // Slipped against the seller from the open it triggered at.
    expect(fills[1]!.price).toBeLessThan(bars.open[1]!);
    expect(kernel.venue.openOrders).toEqual([
      expect.objectContaining({ id: "o3", kind: "stop", stopPrice: price / 2 }),
    ]);
    expect(events.filter((e) => e.type === "order_placed").map((e) => e.data.stop_price)).toEqual([
      undefined,
      price * 2,
      price / 2,
    ]);
  });

  it("cancels a working order a host asks it to cancel, asking bar by bar while it works", () => {
    const asked: Array<[number, number]> = [];
    const host: StrategyHost = {
      decide(_b, from, to, view, out) {
        asked.push([from, to]);
        if (from === 0) out.order({ side: "buy", units: 1, kind: "limit", limitPrice: 1e-6 });
        else if (from === 2 && view.openOrders === 1) out.cancel("o1");
        else return to;
        return from;
      },
    };
    const { kernel, events } = kernelOf(host);
    kernel.run(bars, 0, 10);
    expect(asked.slice(0, 4)).toEqual([
      [0, 10],
      [1, 2],
      [2, 3],
      [3, 10],
    ]);
    expect(events.find((e) => e.type === "order_cancelled")?.data).toMatchObject({
      order_id: "o1",
    });
  });

  it("stops the run with an error naming a host's answer outside the bars asked for", () => {
    const { kernel } = kernelOf({ decide: () => 99 });
    expect(() => kernel.run(bars, 0, 10)).toThrow(/answered bar 99 when asked for bars \[0, 10\)/);
  });
});
