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

async function runSandboxed(host: SandboxHost, chunks: readonly Bars[]) {
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
