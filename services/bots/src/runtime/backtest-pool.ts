import { Worker } from "node:worker_threads";
import { EngineInputError, type Bars, type DatasetSource } from "../engine/index.js";
import type { EngineErrorCode } from "../engine/engine-error.js";
import type { FromWorker, RunJob, ToWorker, WorkerError, WrittenRun } from "./backtest-messages.js";
import type { FinishedRun } from "./backtest-record.js";
import type { WorkerStore } from "./worker-store.js";

/** A run's end: its results for this thread to write, or what its worker wrote itself. */
export type RunEnd = { finished: FinishedRun } | { written: WrittenRun };

/**
 * The worker's entry. From the TypeScript sources (tsx, vitest) it is the .ts file, loaded
 * through tsx; the all-in-one bundle builds it as an entry of its own and bundle.mjs points this
 * very expression at the built backtest-worker.js beside main.js.
 */
const WORKER_URL = new URL("./backtest-worker.ts", import.meta.url);

/** A run started on a worker: its outcome, its progress, and the way to stop it. */
export interface PoolRun {
  /** Its end, or undefined when it was stopped; rejects with the run's (or its worker's) error. */
  readonly outcome: Promise<RunEnd | undefined>;
  /** Bars fed to the engine so far. */
  done(): number;
  /** Asks the worker to stop at its next slice; `outcome` then resolves undefined. */
  stop(): void;
}

export interface BacktestPool {
  /**
   * Runs `job` on a free worker (waits for one); `datasets` serves uploaded data sets' bars. With
   * `job.record` and a `store`, the worker writes the result itself.
   */
  run(job: Omit<RunJob, "id">, datasets: DatasetSource): PoolRun;
  /** Whether the workers write their runs' results themselves (a `store` was given). */
  readonly writes: boolean;
  /** Ends every worker (shutdown); runs still going reject. */
  close(): Promise<void>;
}

interface Slot {
  worker: Worker;
  current?: Active;
}

interface Active {
  id: number;
  datasets: DatasetSource;
  chunks?: AsyncIterator<Bars>;
  /**
   * The data set (and symbol) `chunks` reads: a portfolio's run reads several, one after another.
   */
  chunksOf?: string;
  settle(err: unknown, outcome?: RunEnd): void;
  control: Int32Array;
}

export interface BacktestPoolOptions {
  /** Most workers at once: the process's backtest slots (SVC_BACKTEST_WORKERS). */
  width: number;
  /** Heap of each worker (SVC_BACKTEST_WORKER_MEMORY_MB): past it the worker dies, failing its run. */
  memoryMb?: number;
  /** Where the workers write the results themselves (Postgres); unset, this thread writes them. */
  store?: WorkerStore;
  /** Starts a worker with that heap; tests wrap it to reach one. */
  spawn?: (memoryMb?: number, store?: WorkerStore) => Worker;
}

/**
 * A few persistent worker threads (backtest-worker.ts) that run backtests' computation, started
 * when first needed and kept: a worker that throws outside a run, exits or runs out of memory
 * fails only the run it had, with its error, and the next run starts a new one.
 */
export function createBacktestPool(opts: BacktestPoolOptions): BacktestPool {
  const spawn = opts.spawn ?? spawnBacktestWorker;
  const slots = new Set<Slot>();
  const idle: Slot[] = [];
  const queued: Array<(slot: Slot) => void> = [];
  let nextId = 1;
  let closed = false;

  const release = (slot: Slot) => {
    slot.current = undefined;
    const next = queued.shift();
    if (next) next(slot);
    else idle.push(slot);
  };

  const startSlot = (): Slot => {
    const slot: Slot = { worker: spawn(opts.memoryMb, opts.store) };
    slots.add(slot);
    // Idle workers must not keep the process alive; a run in progress holds it by its timers.
    slot.worker.unref();
    const lost = (err: unknown) => {
      if (!slots.delete(slot)) return;
      const at = idle.indexOf(slot);
      if (at >= 0) idle.splice(at, 1);
      slot.current?.settle(err);
      slot.current = undefined;
      void slot.worker.terminate();
      // A run waiting for a worker gets a new one in place of the lost one.
      const next = queued.shift();
      if (next && !closed) next(startSlot());
    };
    slot.worker.on("error", (err) => lost(err));
    slot.worker.on("exit", (code) =>
      lost(new Error(`the backtest's worker thread stopped (exit code ${code})`)),
    );
    slot.worker.on("message", (msg: FromWorker) => void onMessage(slot, msg));
    return slot;
  };

  const onMessage = async (slot: Slot, msg: FromWorker) => {
    const active = slot.current;
    if (!active || msg.run !== active.id) return;
    switch (msg.type) {
      case "done":
        active.settle(undefined, { finished: msg.finished });
        return release(slot);
      case "written":
        active.settle(undefined, { written: msg.written });
        return release(slot);
      case "stopped":
        active.settle(undefined, undefined);
        return release(slot);
      case "error":
        active.settle(workerError(msg.error));
        return release(slot);
      case "describe": {
        let answer: ToWorker;
        try {
          answer = {
            type: "described",
            ask: msg.ask,
            info: await active.datasets.describe(msg.name),
          };
        } catch (err) {
          return readFailed(slot, active, err, msg.ask);
        }
        return slot.worker.postMessage(answer);
      }
      case "chunk": {
        let next: IteratorResult<Bars>;
        try {
          const of = `${msg.name}\n${msg.symbol ?? ""}`;
          if (!active.chunks || active.chunksOf !== of) {
            active.chunks = active.datasets.chunks(msg.name, msg.symbol)[Symbol.asyncIterator]();
            active.chunksOf = of;
          }
          next = stopped(active) ? { done: true, value: undefined } : await active.chunks.next();
          // Read to its end: a later read of the same data set starts again from its first chunk.
          if (next.done) active.chunks = undefined;
        } catch (err) {
          return readFailed(slot, active, err, msg.ask);
        }
        const bars = next.done ? undefined : next.value;
        // The columns' buffers move to the worker, not copied: this thread is done with them.
        const moved = bars ? movable(bars) : [];
        return slot.worker.postMessage(
          { type: "chunk", ask: msg.ask, bars } satisfies ToWorker,
          moved,
        );
      }
    }
  };

  /**
   * The database failed under a data set read: the run fails (or goes back in the queue) with
   * that very error, so a store outage is told apart from a bad run; the worker is told to stop.
   */
  const readFailed = (slot: Slot, active: Active, err: unknown, ask: number) => {
    Atomics.store(active.control, 0, 1);
    active.settle(err);
    slot.worker.postMessage({ type: "chunk", ask } satisfies ToWorker);
  };

  return {
    run(job, datasets) {
      if (closed) throw new Error("the backtest pool is closed");
      const control = new Int32Array(new SharedArrayBuffer(8));
      const id = nextId++;
      let settle!: Active["settle"];
      const outcome = new Promise<RunEnd | undefined>((resolve, reject) => {
        let settled = false;
        settle = (err, metrics) => {
          if (settled) return;
          settled = true;
          if (err) reject(err);
          else resolve(metrics);
        };
      });
      const begin = (slot: Slot) => {
        slot.current = { id, datasets, settle, control };
        slot.worker.postMessage({ type: "run", job: { ...job, id }, control } satisfies ToWorker);
      };
      const free = idle.pop();
      if (free) begin(free);
      else if (slots.size < opts.width) begin(startSlot());
      else queued.push(begin);
      return {
        outcome,
        done: () => Atomics.load(control, 1),
        stop: () => {
          Atomics.store(control, 0, 1);
          // Not started yet: it never will.
          const at = queued.indexOf(begin);
          if (at >= 0) {
            queued.splice(at, 1);
            settle(undefined, undefined);
          }
        },
      };
    },
    writes: opts.store !== undefined,
    async close() {
      closed = true;
      const all = [...slots];
      slots.clear();
      idle.length = 0;
      for (const s of all) s.current?.settle(new Error("the backtest pool was closed"));
      await Promise.all(all.map((s) => s.worker.terminate()));
    },
  };
}

function stopped(active: Active): boolean {
  return Atomics.load(active.control, 0) !== 0;
}

/** The columns' own buffers, each once (the store's chunks keep all six in one). */
function movable(b: Bars): ArrayBuffer[] {
  const buffers = [b.time, b.open, b.high, b.low, b.close, b.volume].map((c) => c.buffer);
  return [...new Set(buffers)].filter((x): x is ArrayBuffer => x instanceof ArrayBuffer);
}

export function spawnBacktestWorker(memoryMb?: number, store?: WorkerStore): Worker {
  // The sources need tsx in the thread too (backtest-worker-tsx.mjs); the bundle's is JavaScript.
  const fromSources = WORKER_URL.pathname.endsWith(".ts");
  return new Worker(fromSources ? new URL("./backtest-worker-tsx.mjs", WORKER_URL) : WORKER_URL, {
    ...(memoryMb ? { resourceLimits: { maxOldGenerationSizeMb: memoryMb } } : {}),
    workerData: { store },
  });
}

/** The worker's error as this thread's: an input error keeps its class, so its code and field. */
function workerError(e: WorkerError): Error {
  if (e.name === "EngineInputError")
    return new EngineInputError(e.code as EngineErrorCode, e.message, e.field);
  const err = new Error(e.message);
  err.name = e.name;
  return e.strategyLogs ? Object.assign(err, { strategyLogs: e.strategyLogs }) : err;
}
