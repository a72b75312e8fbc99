import { fileURLToPath } from "node:url";
import { checkStrategy, MA_CROSSOVER_EXAMPLE } from "@svc/strategy-sdk/check";
import { afterEach, describe, expect, it } from "vitest";
import { generateBars } from "../engine/synthetic-source.js";
import { blocksOf, driveBlocks, FLAT } from "./fixtures/drive.js";
import {
  bundleStrategyFile,
  sandboxLimitsFromEnv,
  startSandbox,
  StrategyFailure,
  type Sandbox,
  type SandboxOptions,
} from "./index.js";

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const started: Sandbox[] = [];
async function start(options: SandboxOptions): Promise<Sandbox> {
  const sandbox = await startSandbox(options);
  started.push(sandbox);
  return sandbox;
}
afterEach(() => {
  for (const s of started.splice(0)) s.kill();
});

/** The crossover's targets by a plain loop: trading-signals' SMA sums its window oldest first. */
function expectedCrossover(closes: Float64Array, fast: number, slow: number) {
  const mean = (end: number, n: number) => {
    let sum = 0;
    for (let k = end - n + 1; k <= end; k++) sum += closes[k]!;
    return sum / n;
  };
  const out: { at: number; weight: number }[] = [];
  let standing: number | undefined;
  for (let i = slow - 1; i < closes.length; i++) {
    const f = mean(i, fast);
    const s = mean(i, slow);
    const weight = f > s ? 1 : 0;
    if (weight !== standing) out.push({ at: i, weight });
    standing = weight;
  }
  return out;
}

describe("strategy sandbox", () => {
  it("runs an MA crossover written on the SDK to the targets a plain loop gives, answering after each change", async () => {
    const bars = generateBars({ seed: 7, count: 5_000 });
    const bundle = await bundleStrategyFile(fixture("ma-crossover.strategy.ts"));
    const sandbox = await start({ bundle, symbols: ["BTC-USD"], params: { fast: 8, slow: 21 } });
    const init = await sandbox.init();
    expect(init.params).toEqual({ fast: 8, slow: 21, allow_short: false });
    const blocks = blocksOf(bars, 1_000);
    const { decisions, calls, offsets } = await driveBlocks(sandbox, blocks);
    const expected = expectedCrossover(bars.close, 8, 21);
    expect(expected.length).toBeGreaterThan(20);
    expect(offsets).toEqual(expected.map((e) => e.at));
    expect(decisions.map((d) => d.targets)).toEqual(
      expected.map((e) => [{ symbol: "BTC-USD", target: { weight: e.weight } }]),
    );
    expect(decisions.map((d) => d.time)).toEqual(expected.map((e) => bars.time[e.at]));
    // One round trip per change, plus one per block to run out its last bars.
    expect(calls).toBeLessThanOrEqual(decisions.length + blocks.length);
    await sandbox.stop();
  });

  it("gives the same decisions for the same seed, bit for bit, and others for another seed", async () => {
    const bars = generateBars({ seed: 3, count: 2_000 });
    const bundle = await bundleStrategyFile(fixture("random-weights.strategy.ts"));
    const run = async (seed: number) => {
      const sandbox = await start({ bundle, symbols: ["X"], seed });
      await sandbox.init();
      return JSON.stringify((await driveBlocks(sandbox, blocksOf(bars, 500))).decisions);
    };
    const first = await run(42);
    expect(first.length).toBeGreaterThan(1_000);
    expect(await run(42)).toBe(first);
    expect(await run(43)).not.toBe(first);
  });

  it("shows only closed bars up to the one handled, within the lookback, with params resolved and orders collected", async () => {
    const bars = generateBars({ seed: 5, count: 450 });
    const bundle = await bundleStrategyFile(fixture("observer.strategy.ts"));
    const sandbox = await start({
      bundle,
      symbols: ["ETH-USD"],
      params: { every: 100, mode: "units" },
    });
    const init = await sandbox.init();
    expect(init.params).toEqual({ every: 100, mode: "units", scale: 0.5 });
    expect(init.lookback).toBe(5);
    expect(init.declared.every).toEqual({ type: "int", default: 50, min: 1, max: 1000 });
    expect(init.logs).toEqual([
      {
        bar: -1,
        time: null,
        level: "info",
        message: "init",
        fields: { every: 100, mode: "units" },
      },
    ]);
    const logs: string[] = [];
    const decisions = [];
    let from = 0;
    while (from < bars.length) {
      const answer = await sandbox.decide([bars], from, bars.length, FLAT);
      decisions.push(...answer.decisions);
      logs.push(...answer.logs.map((l) => `${l.level} ${l.message}`));
      from = answer.stoppedAfter + 1;
    }
    expect(logs.filter((l) => l.startsWith("warn"))).toEqual([]);
    expect(decisions.map((d) => [d.bar, d.targets, d.orders, d.cancels])).toEqual([
      [
        6,
        [],
        [{ id: "o1", symbol: "ETH-USD", side: "buy", units: 2, type: "limit", limitPrice: 99 }],
        ["o1"],
      ],
      [99, [{ symbol: "ETH-USD", target: { units: 100 } }], [], []],
      [199, [{ symbol: "ETH-USD", target: { units: 200 } }], [], []],
      [299, [{ symbol: "ETH-USD", target: { units: 300 } }], [], []],
      [399, [{ symbol: "ETH-USD", target: { units: 400 } }], [], []],
    ]);
    // Bars go in order: skipping some of the block would leave a hole in the strategy's history.
    const skipped = generateBars({ seed: 5, count: 20 });
    const answer = await sandbox.decide([skipped], 0, 20, FLAT);
    expect(answer.stoppedAfter).toBe(19);
    const again = await sandbox.decide([skipped], 5, 20, FLAT).catch((e: unknown) => e);
    expect(String(again)).toContain("bars go in order: the strategy saw bar 19, not 4");
    const stop = await sandbox.stop();
    expect(stop.logs.map((l) => [l.message, l.fields])).toEqual([["stop", { bars: 470 }]]);
  });

  it("fails a run whose parameters do not fit their declarations before init, naming each", async () => {
    const bundle = await bundleStrategyFile(fixture("observer.strategy.ts"));
    const sandbox = await start({
      bundle,
      symbols: ["X"],
      params: { every: 0, mode: "lots", scale: 2, nope: 1 },
    });
    const failure = await sandbox.init().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(StrategyFailure);
    expect((failure as StrategyFailure).code).toBe("invalid_params");
    const message = (failure as StrategyFailure).message;
    for (const part of [
      "every: 0 is below its minimum 1",
      'mode: "lots" is not one of weight, units',
      "scale: 2 is above its maximum 1",
      "nope: not a parameter",
    ])
      expect(message).toContain(part);
    await sandbox.exited;
  });

  it("resumes from a snapshot where the run was: state, history, standing targets and order ids", async () => {
    const bars = generateBars({ seed: 9, count: 600 });
    const bundle = await bundleStrategyFile(fixture("observer.strategy.ts"));
    const options = { bundle, symbols: ["X"], params: { every: 40 } };
    const whole = await start(options);
    await whole.init();
    const all = (await driveBlocks(whole, blocksOf(bars, 600))).decisions;

    const first = await start(options);
    await first.init();
    const [head, tail] = blocksOf(bars, 300);
    const before = (await driveBlocks(first, [head!])).decisions;
    const snapshot = await first.snapshot();
    first.kill();
    const resumed = await start({ ...options, restore: JSON.parse(JSON.stringify(snapshot)) });
    await resumed.init();
    const after = (await driveBlocks(resumed, [tail!])).decisions.map((d) => ({
      ...d,
      bar: d.bar + 300,
    }));
    expect([...before, ...after]).toEqual(all);
    const stop = await resumed.stop();
    expect(stop.logs[0]!.fields).toEqual({ bars: 600 });
  });

  it("refuses to snapshot a state that is not JSON, failing the run with strategy_error", async () => {
    const bundle = `module.exports.default = { params: {}, onBar(ctx) { ctx.state.when = { at: ctx.time, f: () => 1 }; } };`;
    const sandbox = await start({ bundle, symbols: ["X"] });
    await sandbox.init();
    await sandbox.decide([generateBars({ seed: 1, count: 3 })], 0, 3, FLAT);
    const failure = (await sandbox.snapshot().catch((e: unknown) => e)) as StrategyFailure;
    expect(failure.code).toBe("strategy_error");
    expect(failure.message).toContain("ctx.state is not JSON: state.when.f is a function");
  });

  it("takes its limits from SVC_STRATEGY_* settings, which act, and refuses a bad one", async () => {
    const limits = sandboxLimitsFromEnv({
      SVC_STRATEGY_LOG_LINES: "3",
      SVC_STRATEGY_CALL_TIMEOUT_MS: "800",
    });
    expect(limits.memoryMb).toBe(256);
    const bundle = `module.exports.default = { params: {}, onBar(ctx) { for (let i = 0; i < 10; i++) ctx.log.info("line " + i); if (ctx.time > 1600000000000) for (;;) {} } };`;
    const sandbox = await start({ bundle, symbols: ["X"], limits });
    await sandbox.init();
    const bars = generateBars({ seed: 1, count: 2, startMs: 0 });
    const answer = await sandbox.decide([bars], 0, 2, FLAT);
    expect(answer.logs.map((l) => l.message)).toEqual(["line 0", "line 1", "line 2"]);
    expect(answer.logsDropped).toBe(17);
    const late = generateBars({ seed: 1, count: 1, startMs: 1_700_000_000_000 });
    const failure = (await sandbox
      .decide([late], 0, 1, FLAT)
      .catch((e: unknown) => e)) as StrategyFailure;
    expect(failure.message).toContain("limit of 800 ms");
    expect(() => sandboxLimitsFromEnv({ SVC_STRATEGY_MEMORY_MB: "lots" })).toThrow(
      'SVC_STRATEGY_MEMORY_MB="lots": give a whole number from 16 to 65536',
    );
  });

  it("runs the bundle the strategy checker stores for a version, as it is", async () => {
    const checked = await checkStrategy([{ path: "strategy.ts", content: MA_CROSSOVER_EXAMPLE }]);
    if (!checked.ok) throw new Error(JSON.stringify(checked.diagnostics));
    const sandbox = await start({
      bundle: checked.bundle,
      symbols: ["BTC-USD"],
      params: { fast: 5, slow: 20 },
    });
    expect((await sandbox.init()).params).toEqual({ fast: 5, slow: 20, weight: 1 });
    const { decisions } = await driveBlocks(
      sandbox,
      blocksOf(generateBars({ seed: 3, count: 2_000 }), 500),
    );
    expect(decisions.length).toBeGreaterThan(5);
  });
});
