import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { Bars } from "../../engine/bars.js";
import { BacktestRun, runBacktest } from "../../engine/event-engine.js";
import { resolveStrategy } from "../../engine/strategies/registry.js";
import { generateBars } from "../../engine/synthetic-source.js";
import { blocksOf } from "../../sandbox/fixtures/drive.js";
import {
  bundleStrategyFile,
  startSandbox,
  StrategyFailure,
  type Sandbox,
} from "../../sandbox/index.js";
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

  it("fails the run with strategy_error naming a target in units, instead of ignoring it", async () => {
    const bundle = `module.exports = { default: { onBar(ctx) { ctx.target(ctx.symbols[0], { units: 3 }); } } };`;
    const host = await sandboxed(bundle, {});
    const run = runSandboxed(host, [generateBars({ seed: 1, count: 100 })]);
    await expect(run).rejects.toThrow(StrategyFailure);
    await expect(run).rejects.toMatchObject({
      code: "strategy_error",
      message: expect.stringContaining("targets in units are not supported yet"),
    });
  });

  it("fails the run with strategy_error naming a stop order", async () => {
    const bundle = `module.exports = { default: { onBar(ctx) { ctx.order({ symbol: ctx.symbols[0], side: "buy", units: 1, type: "stop", stopPrice: 1 }); } } };`;
    const host = await sandboxed(bundle, {});
    await expect(runSandboxed(host, [generateBars({ seed: 1, count: 100 })])).rejects.toMatchObject(
      {
        code: "strategy_error",
        message: expect.stringContaining("stop orders are not supported"),
      },
    );
  });
});
