import { Worker } from "node:worker_threads";
import type { StrategyCheck, StrategyFile } from "@svc/strategy-sdk/check";
import { Code, svcError } from "@svc/lib/errors";

const WORKER_URL = new URL("./strategy-check-worker.ts", import.meta.url);

export interface StrategyCheckerOptions {
  /** One check's time on the thread; past it the thread is ended (default 5 s). */
  timeoutMs?: number;
  /** Longest wait for the thread (behind other checks, or while it starts; default 8 s). */
  maxWaitMs?: number;
  /** Checks waiting behind the running one; one more is refused at once (default 16). */
  maxQueued?: number;
  /** Old-generation heap of the checking thread, in MB (default 512). */
  memoryMb?: number;
}

export interface StrategyChecker {
  check(files: StrategyFile[]): Promise<StrategyCheck>;
  /** Starts the thread (compiler loaded, ES lib parsed) ahead of the first check. */
  warm(): Promise<void>;
  close(): Promise<void>;
}

interface Job {
  id: number;
  files: StrategyFile[];
  resolve: (r: StrategyCheck) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout | undefined;
}

type WorkerMessage = { ready: true } | { id: number; result?: StrategyCheck; error?: string };

/**
 * Checks strategies one at a time on a worker thread, each with a deadline, behind a bounded
 * queue. A check past its deadline or its heap (a type-level bomb) ends the thread, the only sure
 * way to stop the compiler, and a fresh thread takes the next check; that caller gets a 400
 * saying so, and a caller that cannot be served in time a 429.
 */
export function createStrategyChecker(opts: StrategyCheckerOptions = {}): StrategyChecker {
  const timeoutMs = opts.timeoutMs ?? 5_000;
  const maxWaitMs = opts.maxWaitMs ?? 8_000;
  const maxQueued = opts.maxQueued ?? 16;
  const memoryMb = opts.memoryMb ?? 512;
  const queue: Job[] = [];
  let running: Job | undefined;
  let worker: { thread: Worker; ready: boolean } | undefined;
  const readyWaiters: Array<() => void> = [];
  let nextId = 1;
  let closed = false;

  function spawn(): NonNullable<typeof worker> {
    // The sources need tsx in the thread too; the bundle's entry is JavaScript.
    const fromSources = WORKER_URL.pathname.endsWith(".ts");
    const thread = new Worker(
      fromSources ? new URL("./strategy-check-worker-tsx.mjs", WORKER_URL) : WORKER_URL,
      { resourceLimits: { maxOldGenerationSizeMb: memoryMb } },
    );
    const self = { thread, ready: false };
    thread.unref();
    thread.on("message", (m: WorkerMessage) => {
      if ("ready" in m) {
        self.ready = true;
        for (const wake of readyWaiters.splice(0)) wake();
        return pump();
      }
      if (!running || running.id !== m.id) return;
      const job = finish();
      if (m.result) job.resolve(m.result);
      else job.reject(new Error(`the strategy checker failed: ${m.error}`));
    });
    thread.on("error", (err: Error & { code?: string }) => {
      if (worker === self) worker = undefined;
      if (!running) return;
      const job = finish();
      job.reject(
        err.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? svcError(
              Code.InvalidArgument,
              "strategy_check_memory",
              `type-checking the strategy needed more than ${memoryMb} MB and was stopped; simplify its types`,
              { field: "strategy.code", memory_mb: memoryMb },
            )
          : err,
      );
    });
    thread.on("exit", (code) => {
      if (worker === self) worker = undefined;
      // A thread that dies before it is ready would only be started again and die again.
      if (!self.ready && !closed)
        for (const job of queue.splice(0)) {
          clearTimeout(job.timer);
          job.reject(new Error(`the strategy checker's thread exited (${code}) before it started`));
        }
      setImmediate(pump);
    });
    return self;
  }

  function finish(): Job {
    const job = running!;
    clearTimeout(job.timer);
    running = undefined;
    setImmediate(pump);
    return job;
  }

  function pump(): void {
    if (running || closed || queue.length === 0) return;
    worker ??= spawn();
    if (!worker.ready) return;
    const job = queue.shift()!;
    clearTimeout(job.timer);
    running = job;
    job.timer = setTimeout(() => expire(job), timeoutMs);
    worker.thread.postMessage({ id: job.id, files: job.files });
  }

  function expire(job: Job): void {
    if (running !== job) return;
    const ended = worker;
    worker = undefined;
    running = undefined;
    void ended?.thread.terminate();
    setImmediate(pump);
    job.reject(
      svcError(
        Code.InvalidArgument,
        "strategy_check_timeout",
        `type-checking the strategy took longer than ${timeoutMs} ms and was stopped; simplify its types`,
        { field: "strategy.code", timeout_ms: timeoutMs },
      ),
    );
  }

  function waitTimer(job: Job): NodeJS.Timeout {
    return setTimeout(() => giveUpWaiting(job), maxWaitMs);
  }

  function giveUpWaiting(job: Job): void {
    const at = queue.indexOf(job);
    if (at < 0) return;
    queue.splice(at, 1);
    job.reject(
      busy(
        worker && !worker.ready
          ? `the checker's thread is still starting after ${maxWaitMs} ms`
          : `no checker was free within ${maxWaitMs} ms`,
      ),
    );
  }

  return {
    check(files) {
      if (closed) return Promise.reject(busy("the strategy checker is shut down"));
      if (queue.length >= maxQueued)
        return Promise.reject(busy(`${queue.length} strategies are waiting to be checked`));
      return new Promise<StrategyCheck>((resolve, reject) => {
        const job: Job = { id: nextId++, files, resolve, reject, timer: undefined };
        // The thread's start counts too: a wait plus a check stays inside a write's deadline
        // (15 s), so a slow start answers a clear 429 and the next try finds the thread ready.
        job.timer = waitTimer(job);
        queue.push(job);
        pump();
      });
    },
    warm() {
      worker ??= spawn();
      if (worker.ready) return Promise.resolve();
      return new Promise<void>((resolve) => readyWaiters.push(resolve));
    },
    async close() {
      closed = true;
      for (const job of [...queue.splice(0), ...(running ? [running] : [])]) {
        clearTimeout(job.timer);
        job.reject(busy("the strategy checker is shut down"));
      }
      running = undefined;
      const ended = worker;
      worker = undefined;
      await ended?.thread.terminate();
      for (const wake of readyWaiters.splice(0)) wake();
    },
  };
}

function busy(why: string) {
  return svcError(
    Code.ResourceExhausted,
    "strategy_check_busy",
    `the strategy could not be checked now (${why}); try again shortly`,
    { field: "strategy.code" },
  );
}
