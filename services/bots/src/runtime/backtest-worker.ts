/**
 * The thread a backtest's computation runs on (backtest-pool.ts starts a few and keeps them):
 * it streams and parses the bars and feeds the engine, so the process's event loop only does
 * the run's I/O (its lease and progress writes, an uploaded data set's chunks from the database)
 * and answers requests meanwhile. The engine is built here from plain inputs, the same way the
 * main thread built it before, so a run's figures are the same to the last bit.
 */
import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { EngineInputError, type DatasetSource } from "../engine/index.js";
import { StrategyFailure } from "../sandbox/index.js";
import { computeBacktest } from "./backtest-compute.js";
import { finishedRun } from "./backtest-record.js";
import type { FromWorker, RunJob, ToWorker } from "./backtest-messages.js";
import type { FinishedRun } from "./backtest-record.js";
import type { WorkerStore } from "./worker-store.js";

const port = parentPort;
if (!port) throw new Error("backtest-worker.ts runs as a worker thread (backtest-pool.ts)");
/** Where this worker writes its runs' results itself (Postgres); none: it sends them back. */
const store = (workerData as { store?: WorkerStore } | undefined)?.store;
/**
 * The write's code, loaded from the worker's start beside its first run rather than after it; a
 * worker that never writes (PGlite) never loads it and keeps a lean heap.
 */
const writer = store
  ? Promise.all([import("./record-run.js"), import("./worker-store.js")])
  : undefined;
// A failed load fails the first run that writes (awaited there), not the thread.
writer?.catch(() => {});

/**
 * The computation yields the CPU to the process's event loop: on a machine with as many cores
 * as workers, a request's few milliseconds of work would otherwise queue behind the runs' time
 * slices. Linux lets a thread lower its own priority (its kernel id is /proc/thread-self's name);
 * elsewhere, or where it is refused, the worker keeps the process's priority.
 */
const NICENESS = 10;
try {
  setPriority(Number(readlinkSync("/proc/thread-self").split("/").pop()), NICENESS);
} catch {
  // No /proc (macOS, Windows) or not allowed: the same figures, at the process's priority.
}

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
    async *chunks(name, symbol) {
      for (;;) {
        const a = await ask({
          type: "chunk",
          run: runId,
          ask: nextAsk++,
          name,
          ...(symbol !== undefined ? { symbol } : {}),
        });
        if (a.type !== "chunk" || !a.bars) return;
        yield a.bars;
      }
    },
  };
}

/**
 * The run's end, told to the main thread: written here (then only its headline crosses), or its
 * results to write there; "stopped" when it was stopped before either.
 */
async function finish(job: RunJob, control: Int32Array, finished: FinishedRun | undefined) {
  if (!finished || Atomics.load(control, 0) !== 0)
    return port!.postMessage({ type: "stopped", run: job.id } satisfies FromWorker);
  if (!store || !job.record)
    return port!.postMessage({ type: "done", run: job.id, finished } satisfies FromWorker);
  const [{ recordFinishedRun }, { workerDb }] = await writer!;
  const recorded = await recordFinishedRun(await workerDb(store), job.record, finished);
  const m = finished.metrics;
  port!.postMessage({
    type: "written",
    run: job.id,
    written: { recorded, bars: m.bars, trades: m.trades, totalReturn: m.totalReturn },
  } satisfies FromWorker);
}

port.on("message", (msg: ToWorker) => {
  if (msg.type === "run") {
    computeBacktest(msg.job, msg.control, remoteDatasets(msg.job.id))
      .then((metrics) => metrics && finishedRun(metrics))
      .then((finished) => finish(msg.job, msg.control, finished))
      .then(
        () => {},
        (err: unknown) =>
          port.postMessage({
            type: "error",
            run: msg.job.id,
            error:
              err instanceof EngineInputError
                ? { name: err.name, message: err.message, code: err.code, field: err.field }
                : err instanceof StrategyFailure
                  ? // The run's recorded error names the code first: "strategy_timeout: ...",
                    // then the strategy's own frames, so its author finds the line.
                    {
                      name: err.name,
                      message: strategyFailureText(err),
                      code: err.code,
                      ...(err.strategyLogs
                        ? {
                            strategyLogs: {
                              lines: [...err.strategyLogs.lines],
                              dropped: err.strategyLogs.dropped,
                            },
                          }
                        : {}),
                    }
                  : {
                      name: (err as Error)?.name ?? "Error",
                      message: (err as Error)?.message ?? String(err),
                      // A store's error keeps its code: an outage requeues the run, never fails it.
                      ...(typeof (err as { code?: unknown })?.code === "string"
                        ? { code: (err as { code: string }).code }
                        : {}),
                    },
          } satisfies FromWorker),
      );
    return;
  }
  const answer = waiting.get(msg.ask);
  waiting.delete(msg.ask);
  answer?.(msg);
});

/** "code: message", then the frames of the strategy's stack (its first line repeats the message). */
function strategyFailureText(err: StrategyFailure): string {
  const frames = (err.strategyStack ?? "").split("\n").slice(1);
  return [`${err.code}: ${err.message}`, ...frames].join("\n");
}
