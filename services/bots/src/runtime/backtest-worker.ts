/**
 * The thread a backtest's computation runs on (backtest-pool.ts starts a few and keeps them):
 * it streams and parses the bars and feeds the engine, so the process's event loop only does
 * the run's I/O (its lease and progress writes, an uploaded data set's chunks from the database)
 * and answers requests meanwhile. The engine is built here from plain inputs, the same way the
 * main thread built it before, so a run's figures are the same to the last bit.
 */
import { parentPort } from "node:worker_threads";
import {
  anyLimit,
  BacktestRun,
  barsAt,
  EngineInputError,
  resolveStrategy,
  RiskGuard,
  streamBars,
  vectorisedRun,
  type Bars,
  type DatasetSource,
} from "../engine/index.js";
import { RefusalCounter } from "../execution/refusal-counter.js";
import type { FromWorker, RunJob, ToWorker } from "./backtest-messages.js";

/** Bars fed between two looks at the stop flag: a halt waits at most this many bars. */
const SLICE = 4_096;

const port = parentPort;
if (!port) throw new Error("backtest-worker.ts runs as a worker thread (backtest-pool.ts)");

/** Answers of the main thread to this thread's data set reads, by request id. */
const waiting = new Map<number, (msg: ToWorker) => void>();
let nextAsk = 0;

function ask(msg: FromWorker & { ask: number }): Promise<ToWorker> {
  return new Promise((resolve) => {
    waiting.set(msg.ask, resolve);
    port!.postMessage(msg);
  });
}

/** Uploaded data sets live in the database, which only the main thread reaches. */
function remoteDatasets(runId: number): DatasetSource {
  return {
    async describe(name) {
      const a = await ask({ type: "describe", run: runId, ask: nextAsk++, name });
      return a.type === "described" ? a.info : undefined;
    },
    async *chunks(name) {
      for (;;) {
        const a = await ask({ type: "chunk", run: runId, ask: nextAsk++, name });
        if (a.type !== "chunk" || !a.bars) return;
        yield a.bars;
      }
    },
  };
}

async function run(job: RunJob, control: Int32Array): Promise<FromWorker> {
  const refused = new Map<string, number>();
  const { family, params } = resolveStrategy(job.family, job.params);
  const checks = anyLimit(job.risk)
    ? [
        new RefusalCounter(
          new RiskGuard({ limits: job.risk, startEquity: job.settings.initialCash }),
          refused,
        ),
      ]
    : undefined;
  const options = { ...(checks ? { checks } : {}), symbol: job.symbol };
  // A family with target columns runs on the vectorised path, the same run to the last bit
  // (vectorised.test.ts); pre-trade checks are not part of what those tests prove.
  const engine =
    family.columns && !anyLimit(job.risk)
      ? vectorisedRun(family, params, job.settings, options)
      : new BacktestRun(family.create(params), job.settings, options);
  const { dataSource, startMs, endMs, timeframe } = job.bars;
  let done = 0;
  const opts = { datasets: remoteDatasets(job.id), timeframe };
  for await (const bars of streamBars(dataSource, startMs, endMs, opts)) {
    for (let from = 0; from < bars.length; from += SLICE) {
      if (Atomics.load(control, 0) !== 0) return { type: "stopped", run: job.id };
      const to = Math.min(from + SLICE, bars.length);
      engine.feed(barsAt(bars as Bars, from, to));
      done += to - from;
      Atomics.store(control, 1, done);
    }
  }
  if (Atomics.load(control, 0) !== 0) return { type: "stopped", run: job.id };
  const metrics = engine.finish();
  return {
    type: "done",
    run: job.id,
    metrics:
      refused.size > 0 ? { ...metrics, riskRejections: Object.fromEntries(refused) } : metrics,
  };
}

port.on("message", (msg: ToWorker) => {
  if (msg.type === "run") {
    run(msg.job, msg.control).then(
      (answer) => port.postMessage(answer),
      (err: unknown) =>
        port.postMessage({
          type: "error",
          run: msg.job.id,
          error:
            err instanceof EngineInputError
              ? { name: err.name, message: err.message, code: err.code, field: err.field }
              : {
                  name: (err as Error)?.name ?? "Error",
                  message: (err as Error)?.message ?? String(err),
                },
        } satisfies FromWorker),
    );
    return;
  }
  const answer = waiting.get(msg.ask);
  waiting.delete(msg.ask);
  answer?.(msg);
});
