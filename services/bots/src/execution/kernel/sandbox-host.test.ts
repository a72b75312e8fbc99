import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { Bars } from "../../engine/bars.js";
import { BacktestRun, runBacktest } from "../../engine/event-engine.js";
import { resolveStrategy } from "../../engine/strategies/registry.js";
import { generateBars } from "../../engine/synthetic-source.js";
import { blocksOf } from "../../sandbox/fixtures/drive.js";
import { bundleStrategyFile, startSandbox, type Sandbox } from "../../sandbox/index.js";
import type { ExecutionEvent } from "../events.js";
import { riskLimitsFrom } from "../risk-controls/limits.js";
import { SandboxHost } from "./sandbox-host.js";
import type { AsyncStrategyHost, BarBlock, DecisionSink, PortfolioView } from "./strategy-host.js";

const fixture = (name: string) =>
  fileURLToPath(new URL(`../../sandbox/fixtures/${name}`, import.meta.url));
const settings = { initialCash: 100_000, feeBps: 5, slippageBps: 3, positionSize: 0.5 };
const started: Sandbox[] = [];
afterEach(() => {
  for (const s of started.splice(0)) s.kill();
});

async function sandboxed(bundle: string, params: Record<string, unknown>) {
  const sandbox = await startSandbox({ bundle, params, symbols: ["BTC-USD"] });
  started.push(sandbox);
  await sandbox.init();
  return new SandboxHost(sandbox, "BTC-USD");
}

/** The strategy's log lines, message and fields flat. */
function linesOf(host: SandboxHost): Record<string, string | number | boolean | undefined>[] {
  return host.logs.map((l) => ({ message: l.message, ...l.fields }));
}

/** Counts the sandbox's round trips (a decide or a resume each). */
function countTrips(sandbox: Sandbox): { trips: number } {
  const count = { trips: 0 };
  const decide = sandbox.decide.bind(sandbox);
  const resume = sandbox.resume.bind(sandbox);
  sandbox.decide = (...a) => (count.trips++, decide(...a));
  sandbox.resume = (...a) => (count.trips++, resume(...a));
  return count;
}

/** The reference: the host asked one bar at a time, so its strategy never runs ahead. */
class BarByBar implements AsyncStrategyHost {
  constructor(private readonly inner: SandboxHost) {}
  async decide(b: BarBlock, from: number, to: number, v: PortfolioView, out: DecisionSink) {
    for (let t = from; t < to; t++)
      if ((await this.inner.decide(b, t, t + 1, v, out)) === t) return t;
    return to;
  }
  fills(f: Parameters<SandboxHost["fills"]>[0]) {
    this.inner.fills(f);
  }
  stop() {
    return this.inner.stop();
  }
  placed(ref: string, id: string | undefined) {
    this.inner.placed(ref, id);
  }
}

async function runSandboxed(host: AsyncStrategyHost, chunks: readonly Bars[]) {
  const run = new BacktestRun({ asyncHost: host }, settings, { symbol: "BTC-USD" });
  for (const chunk of chunks) await run.feedAsync(chunk);
  await run.stop();
  return run.finish();
}

describe("a sandboxed strategy through the execution kernel", () => {
  it("backtests to the built-in ma_crossover's trades and metrics, bit for bit, over streamed chunks", async () => {
    const bars = generateBars({ seed: 5, count: 30_000 });
    const p = { fast: 7, slow: 40, allow_short: true };
    const { family, params } = resolveStrategy("ma_crossover", p);
    const builtIn = runBacktest(bars, family.create(params), settings, { symbol: "BTC-USD" });
    const host = await sandboxed(await bundleStrategyFile(fixture("ma-family.strategy.ts")), p);
    const chunks = blocksOf(bars, 7_000).map((b) => b[0]!);
    const viaSandbox = await runSandboxed(host, chunks);
    expect(builtIn.trades).toBeGreaterThan(50);
    expect(viaSandbox).toEqual(builtIn);
    expect(Object.is(viaSandbox.finalEquity, builtIn.finalEquity)).toBe(true);
  });

  it("runs a strategy that never reads the portfolio ahead of the kernel: one round trip per chunk, the same run", async () => {
    const bars = generateBars({ seed: 9, count: 20_000 });
    const p = { fast: 5, slow: 20 };
    const { family, params } = resolveStrategy("ma_crossover", p);
    const builtIn = runBacktest(bars, family.create(params), settings, { symbol: "BTC-USD" });
    const bundle = await bundleStrategyFile(fixture("ma-family.strategy.ts"));
    const sandbox = await startSandbox({ bundle, params: p, symbols: ["BTC-USD"] });
    started.push(sandbox);
    await sandbox.init();
    const count = countTrips(sandbox);
    const chunks = blocksOf(bars, 5_000).map((b) => b[0]!);
    const viaSandbox = await runSandboxed(new SandboxHost(sandbox, "BTC-USD"), chunks);
    expect(builtIn.trades).toBeGreaterThan(200);
    expect(viaSandbox).toEqual(builtIn);
    expect(count.trips).toBe(chunks.length);
  });

  for (const [name, file] of [
    ["reads its portfolio on some bars", "portfolio-reader.strategy.ts"],
    ["hears its fills in onFill", "fill-listener.strategy.ts"],
  ] as const)
    it(`gives a strategy that ${name} what a bar-by-bar run gives it, bit for bit`, async () => {
      const bars = generateBars({ seed: 11, count: 6_000 });
      const chunks = blocksOf(bars, 2_500).map((b) => b[0]!);
      const bundle = await bundleStrategyFile(fixture(file));
      const ahead = await sandboxed(bundle, {});
      const count = countTrips(started.at(-1)!);
      const barByBar = await sandboxed(bundle, {});
      const a = await runSandboxed(ahead, chunks);
      const b = await runSandboxed(new BarByBar(barByBar), chunks);
      expect(a.trades).toBeGreaterThan(50);
      expect(a).toEqual(b);
      expect(ahead.logs.length).toBeGreaterThan(100);
      expect(ahead.logs).toEqual(barByBar.logs);
      if (file === "fill-listener.strategy.ts")
        expect(ahead.logs.some((l) => l.message === "fill")).toBe(true);
      // Ahead, it crosses the boundary at its reads (or fills) only, not at every decision too.
      const decisions = a.trades;
      expect(count.trips).toBeLessThan(bars.length / 2);
      expect(count.trips).toBeGreaterThan(decisions / 4);
    });

  it("runs explicit orders (market, limit, stop), cancels and units targets through the kernel, the strategy seeing its own order ids", async () => {
    const bars = generateBars({ seed: 3, count: 4_000 });
    const chunks = blocksOf(bars, 1_500).map((b) => b[0]!);
    const bundle = await bundleStrategyFile(fixture("orders.strategy.ts"));
    const host = await sandboxed(bundle, {});
    const events: ExecutionEvent[] = [];
    const run = new BacktestRun({ asyncHost: host }, settings, {
      symbol: "BTC-USD",
      onEvent: (e) => events.push(e),
    });
    for (const chunk of chunks) await run.feedAsync(chunk);
    await run.stop();
    const metrics = run.finish();
    const lines = linesOf(host);
    const placed = new Map(
      lines.filter((l) => l.message === "placed").map((l) => [l.id as string, l.type as string]),
    );
    const filled = lines.filter((l) => l.message === "fill");
    // Every fill names an order the strategy placed, by the id it got, or a target's order.
    for (const f of filled)
      expect(placed.has(f.id as string) || String(f.id).startsWith("target:"), String(f.id)).toBe(
        true,
      );
    const filledTypes = new Set(filled.map((f) => placed.get(f.id as string) ?? "target"));
    expect([...filledTypes].sort()).toEqual(["limit", "market", "stop", "target"]);
    // A cancelled order never fills after its cancel; some were cancelled before filling.
    let cancelledOpen = 0;
    for (const [i, l] of lines.entries()) {
      if (l.message !== "cancel") continue;
      const before = lines.slice(0, i).some((x) => x.message === "fill" && x.id === l.id);
      const after = lines.slice(i + 1).some((x) => x.message === "fill" && x.id === l.id);
      expect(after, String(l.id)).toBe(false);
      if (!before) cancelledOpen++;
    }
    expect(cancelledOpen).toBeGreaterThan(3);
    expect(events.filter((e) => e.type === "order_cancelled").length).toBeGreaterThanOrEqual(
      cancelledOpen,
    );
    // Its open orders are listed by its own ids.
    const open = lines.filter((l) => l.message === "open" && l.ids !== "");
    expect(open.length).toBeGreaterThan(3);
    for (const o of open)
      for (const id of String(o.ids).split(","))
        expect(placed.has(id) || id.startsWith("target:"), id).toBe(true);
    // Stop orders reach the venue as stops.
    expect(
      events.some(
        (e) => e.type === "order_placed" && e.data.kind === "stop" && e.data.stop_price! > 0,
      ),
    ).toBe(true);
    expect(metrics.trades).toBeGreaterThan(10);
    // Ahead of the kernel or bar by bar, the same run.
    const again = await runSandboxed(new BarByBar(await sandboxed(bundle, {})), chunks);
    expect(again).toEqual(metrics);
  });

  it("sends explicit orders through the risk controls: an order over max_order_units is refused, and the strategy never hears of a fill for it", async () => {
    const bars = generateBars({ seed: 3, count: 1_000 });
    const bundle = await bundleStrategyFile(fixture("orders.strategy.ts"));
    const host = await sandboxed(bundle, {});
    const refused = new Map<string, number>();
    const limits = { ...riskLimitsFrom(), maxOrderUnits: 1.5 };
    const run = new BacktestRun({ asyncHost: host }, settings, {
      symbol: "BTC-USD",
      risk: { limits, startEquity: settings.initialCash, refused },
    });
    await run.feedAsync(bars);
    await run.stop();
    run.finish();
    const lines = linesOf(host);
    const limitsPlaced = lines.filter((l) => l.message === "placed" && l.type === "limit");
    expect(limitsPlaced.length).toBeGreaterThan(10);
    // The 2-unit limit orders are all refused; the 1-unit stop and market orders go through.
    expect([...refused.values()].reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(
      limitsPlaced.length,
    );
    const filledIds = new Set(lines.filter((l) => l.message === "fill").map((l) => l.id));
    for (const l of limitsPlaced) expect(filledIds.has(l.id)).toBe(false);
    expect(lines.some((l) => l.message === "fill" && !String(l.id).startsWith("target:"))).toBe(
      true,
    );
  });
});
