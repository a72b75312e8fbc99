import { Worker } from "node:worker_threads";
import type { StrategyCheck, StrategyFile } from "@svc/strategy-sdk/check";
import { Code, svcError } from "@svc/lib/errors";

const WORKER_URL = new URL("./strategy-check-worker.ts", import.meta.url);

export interface StrategyCheckerOptions {
  /** From submission to verdict; past it a running check's thread is ended (default 8 s). */
  timeoutMs?: number;
  /** Checks waiting behind the running one; one more is refused at once (default 16). */
  maxQueued?: number;
  /** Old-generation heap of the checking thread, in MB (default 384). */
  memoryMb?: number;
}

export interface StrategyChecker {
  check(files: StrategyFile[]): Promise<StrategyCheck>;
  close(): Promise<void>;
}

interface Job {
  id: number;
  files: StrategyFile[];
  resolve: (r: StrategyCheck) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * Checks strategies one at a time on a worker thread, with a deadline and a bounded queue. A
 * check past its deadline or its heap (a type-level bomb) ends the thread, the only sure way to
 * stop the compiler, and the next check starts a fresh one; that caller gets a 400 saying so.
 */
export function createStrategyChecker(opts: StrategyCheckerOptions = {}): StrategyChecker {
  const timeoutMs = opts.timeoutMs ?? 8_000;
  const maxQueued = opts.maxQueued ?? 16;
  const memoryMb = opts.memoryMb ?? 384;
  const queue: Job[] = [];
  let running: Job | undefined;
  let worker: Worker | undefined;
  let nextId = 1;
  let closed = false;

  function spawn(): Worker {
    // The sources need tsx in the thread too; the bundle's entry is JavaScript.
    const fromSources = WORKER_URL.pathname.endsWith(".ts");
    const w = new Worker(
      fromSources ? new URL("./strategy-check-worker-tsx.mjs", WORKER_URL) : WORKER_URL,
      { resourceLimits: { maxOldGenerationSizeMb: memoryMb } },
    );
    w.unref();
    w.on("message", (m: { id: number; result?: StrategyCheck; error?: string }) => {
      if (!running || running.id !== m.id) return;
      const job = finish();
      if (m.result) job.resolve(m.result);
      else job.reject(new Error(`the strategy checker failed: ${m.error}`));
    });
    w.on("error", (err: Error & { code?: string }) => {
      if (worker === w) worker = undefined;
      if (!running) return;
      const job = finish();
      job.reject(
        err.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? svcError(
              Code.InvalidArgument,
              "strategy_check_memory",
              `type-checking the strategy needed more than ${memoryMb} MB; simplify its types`,
              { field: "strategy.code", memory_mb: memoryMb },
            )
          : err,
      );
    });
    w.on("exit", () => {
      if (worker === w) worker = undefined;
    });
    return w;
  }

  function finish(): Job {
    const job = running!;
    clearTimeout(job.timer);
    running = undefined;
    setImmediate(pump);
    return job;
  }

  function pump(): void {
    if (running || closed) return;
    const job = queue.shift();
    if (!job) return;
    running = job;
    worker ??= spawn();
    worker.postMessage({ id: job.id, files: job.files });
  }

  function expire(job: Job): void {
    if (running === job) {
      const w = worker;
      worker = undefined;
      running = undefined;
      void w?.terminate();
      setImmediate(pump);
      return job.reject(
        svcError(
          Code.InvalidArgument,
          "strategy_check_timeout",
          `type-checking the strategy took longer than ${timeoutMs} ms and was stopped; simplify its types`,
          { field: "strategy.code", timeout_ms: timeoutMs },
        ),
      );
    }
    const at = queue.indexOf(job);
    if (at >= 0) queue.splice(at, 1);
    job.reject(busy(`no checker was free within ${timeoutMs} ms`));
  }

  return {
    check(files) {
      if (closed) return Promise.reject(busy("the strategy checker is shut down"));
      if (queue.length >= maxQueued)
        return Promise.reject(busy(`${queue.length} strategies are waiting to be checked`));
      return new Promise<StrategyCheck>((resolve, reject) => {
        const job: Job = { id: nextId++, files, resolve, reject, timer: undefined! };
        job.timer = setTimeout(() => expire(job), timeoutMs);
        queue.push(job);
        pump();
      });
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) {
        clearTimeout(job.timer);
        job.reject(busy("the strategy checker is shut down"));
      }
      if (running) {
        clearTimeout(running.timer);
        running.reject(busy("the strategy checker is shut down"));
        running = undefined;
      }
      await worker?.terminate();
      worker = undefined;
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
