import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { SandboxHost } from "../../execution/kernel/sandbox-host.js";
import { bundleStrategyFile, startSandbox, type Sandbox } from "../../sandbox/index.js";
import { barsAt } from "../bars.js";
import { BacktestRun, runBacktest } from "../event-engine.js";
import { generateBars } from "../synthetic-source.js";
import { resolveStrategy } from "./registry.js";

const settings = { initialCash: 100_000, feeBps: 5, slippageBps: 3, positionSize: 0.5 };
const started: Sandbox[] = [];
afterEach(() => {
  for (const s of started.splice(0)) s.kill();
});

// A built-in family's source is an SDK strategy file like an uploaded one: bundled and run in
// the sandbox, it gives the run the family gives in this process.
describe("a built-in family's own SDK file, uploaded as code", () => {
  it.each([
    ["ma_crossover", "ma-crossover", { fast: 7, slow: 40, allow_short: true }],
    ["mean_reversion_bands", "mean-reversion-bands", { window: 15, k: 1.2, allow_short: true }],
    ["breakout", "breakout", { lookback: 30, exit_lookback: 12 }],
  ] as const)(
    "%s runs in the sandbox to the in-process family's run, bit for bit",
    async (name, file, p) => {
      const bars = generateBars({ seed: 5, count: 20_000, intervalMs: 60_000 });
      const { family, params } = resolveStrategy(name, p);
      const inProcess = runBacktest(bars, family.create(params), settings, { symbol: "BTC-USD" });
      const bundle = await bundleStrategyFile(
        fileURLToPath(new URL(`./sdk/${file}.strategy.ts`, import.meta.url)),
      );
      const sandbox = await startSandbox({ bundle, params: p, symbols: ["BTC-USD"] });
      started.push(sandbox);
      await sandbox.init();
      const run = new BacktestRun({ asyncHost: new SandboxHost(sandbox, "BTC-USD") }, settings, {
        symbol: "BTC-USD",
      });
      for (let at = 0; at < bars.length; at += 6_000)
        await run.feedAsync(barsAt(bars, at, Math.min(bars.length, at + 6_000)));
      await run.stop();
      const viaSandbox = run.finish();
      expect(inProcess.trades).toBeGreaterThan(20);
      expect(viaSandbox).toEqual(inProcess);
      expect(Object.is(viaSandbox.finalEquity, inProcess.finalEquity)).toBe(true);
    },
  );
});
