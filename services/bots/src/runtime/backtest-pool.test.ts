import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { EngineInputError, streamBars, type Bars, type DatasetSource } from "../engine/index.js";
import { riskLimitsFrom } from "../execution/risk-controls/index.js";
import { computeBacktest } from "./backtest-compute.js";
import type { RunJob } from "./backtest-messages.js";
import { finishedRun } from "./backtest-record.js";
import { createBacktestPool, spawnBacktestWorker, type BacktestPool } from "./backtest-pool.js";
import { eventually } from "../../../../test/support/until.js";

const START = Date.UTC(2022, 0, 1);
const NO_DATASETS: DatasetSource = {
  describe: async () => undefined,
  chunks: async function* () {},
};
/** 100,000 minute bars, event-driven (risk limits): a run long enough to watch in progress. */
const long = (seed: number): Omit<RunJob, "id"> => ({
  family: "ma_crossover",
  params: { fast: 5, slow: 20, allow_short: true },
  settings: {
    initialCash: 100_000,
    feeBps: 5,
    slippageBps: 2,
    positionSize: 0.6,
    maxVolumeParticipation: 1,
  },
  risk: riskLimitsFrom({ maxOrderUnits: 1_000_000 }),
  symbol: "BTC-USD",
  bars: {
    dataSource: `synthetic:${seed}`,
    startMs: START,
    endMs: START + 100_000 * 60_000,
    timeframe: "1m",
  },
});
const short: Omit<RunJob, "id"> = { ...long(3), bars: { dataSource: "csv:sample-btc-usd-1d" } };

/**
 * A data set whose first chunk is served at once and whose second waits for `release`: a run on
 * it is caught in progress for as long as a test needs, however fast the machine (a run left to
 * finish on its own raced the test's kill or stop, and won on a loaded CI machine).
 */
function heldDataset() {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const source: DatasetSource = {
    describe: async () => ({ symbol: "BTC-USD", timeframe: "1m" }),
    chunks: async function* () {
      const end = START + 10_000 * 60_000;
      for await (const bars of streamBars("synthetic:7", START, end, { timeframe: "1m" })) {
        yield bars as Bars;
        await released;
      }
    },
  };
  return { source, release };
}
const onHeld: Omit<RunJob, "id"> = { ...short, bars: { dataSource: "csv:held" } };

/** The same job computed on this thread: what the worker's answer must equal, bit for bit. */
const here = async (job: Omit<RunJob, "id">, datasets = NO_DATASETS) => ({
  finished: finishedRun(
    (await computeBacktest({ ...job, id: 0 }, new Int32Array(new SharedArrayBuffer(8)), datasets))!,
  ),
});

describe("the backtest worker pool", () => {
  let pool: BacktestPool | undefined;
  afterEach(async () => pool?.close());

  it("computes on another thread: a run advances while this thread never yields, to the same figures", async () => {
    pool = createBacktestPool({ width: 1 });
    const run = pool.run(long(1), NO_DATASETS);
    // A run sliced on this thread's event loop could not feed one bar during this loop.
    const giveUp = Date.now() + 60_000;
    while (run.done() === 0 && Date.now() < giveUp);
    expect(run.done()).toBeGreaterThan(0);
    const outcome = await run.outcome;
    expect(outcome && "finished" in outcome && outcome.finished.metrics.bars).toBe(100_000);
    expect(outcome).toEqual(await here(long(1)));
  }, 90_000);

  it("fails only the run of a worker that dies, and replaces the worker", async () => {
    const spawned: Worker[] = [];
    pool = createBacktestPool({
      width: 2,
      spawn: () => {
        const w = spawnBacktestWorker();
        spawned.push(w);
        return w;
      },
    });
    const keptData = heldDataset();
    const kept = pool.run(onHeld, keptData.source);
    const lost = pool.run(onHeld, heldDataset().source);
    await eventually(
      "both runs compute",
      () => [kept.done(), lost.done()],
      (d) => d.every((n) => n > 0),
      60_000,
    );
    await spawned[1]!.terminate();
    await expect(lost.outcome).rejects.toThrow(/worker thread stopped/);
    keptData.release();
    const unheld = heldDataset();
    unheld.release();
    expect(await kept.outcome).toEqual(await here(onHeld, unheld.source));
    // Two at once again: the dead worker's place is taken by a new one.
    const after = [pool.run(short, NO_DATASETS), pool.run(short, NO_DATASETS)];
    const expected = await here(short);
    for (const r of after) expect(await r.outcome).toEqual(expected);
    expect(spawned).toHaveLength(3);
  }, 90_000);

  it("fails a run whose input is refused in the worker with that error, and keeps the worker", async () => {
    const spawned: Worker[] = [];
    pool = createBacktestPool({
      width: 1,
      spawn: () => {
        const w = spawnBacktestWorker();
        spawned.push(w);
        return w;
      },
    });
    const bad = pool.run({ ...short, bars: { dataSource: "csv:no-such-set" } }, NO_DATASETS);
    const err = await bad.outcome.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EngineInputError);
    expect(err).toMatchObject({ code: "invalid_parameter", field: "data_source" });
    expect(await pool.run(short, NO_DATASETS).outcome).toEqual(await here(short));
    expect(spawned).toHaveLength(1);
  }, 90_000);

  it("stops a run when asked: it ends without figures and the worker takes the next", async () => {
    pool = createBacktestPool({ width: 1 });
    const held = heldDataset();
    const run = pool.run(onHeld, held.source);
    await eventually(
      "the run computes",
      () => run.done(),
      (n) => n > 0,
      60_000,
    );
    run.stop();
    held.release();
    expect(await run.outcome).toBeUndefined();
    expect(await pool.run(short, NO_DATASETS).outcome).toEqual(await here(short));
  }, 90_000);

  it("ends a run that outgrows its worker's heap with that error, and only that run", async () => {
    // The engine streams its bars and keeps bounded results, so no built-in run grows without
    // end: a worker that hoards on its first run stands for one that does (a strategy's state).
    const hoarder = `
      const { parentPort } = require("node:worker_threads");
      const kept = [];
      parentPort.on("message", () => { for (;;) kept.push(new Array(1e5).fill(kept.length)); });`;
    const spawned: Worker[] = [];
    pool = createBacktestPool({
      width: 1,
      memoryMb: 32,
      spawn: (memoryMb) => {
        const w =
          spawned.length === 0
            ? new Worker(hoarder, {
                eval: true,
                resourceLimits: { maxOldGenerationSizeMb: memoryMb! },
              })
            : spawnBacktestWorker(memoryMb);
        spawned.push(w);
        return w;
      },
    });
    const err = await pool.run(short, NO_DATASETS).outcome.catch((e: unknown) => e);
    expect(String(err)).toMatch(/out of memory/i);
    // The next run gets a new worker, with the same heap bound, and its figures.
    expect(await pool.run(short, NO_DATASETS).outcome).toEqual(await here(short));
    expect(spawned).toHaveLength(2);
    expect(spawned[1]!.resourceLimits?.maxOldGenerationSizeMb).toBe(32);
  }, 90_000);
});
