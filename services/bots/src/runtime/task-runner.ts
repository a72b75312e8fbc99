/**
 * Runs background tasks (backtests) off the request path: the request returns at once with a
 * task id, the task runs on the event loop in short slices (the engine yields between chunks),
 * so no request waits behind it. `stop` lets running tasks finish before shutdown.
 */
export interface TaskRunner {
  submit(taskId: string, task: () => Promise<void>): void;
  /** Resolves when every task submitted so far has settled (tests, shutdown). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export function createTaskRunner(onError: (taskId: string, err: unknown) => void): TaskRunner {
  const running = new Map<string, Promise<void>>();
  let stopped = false;
  return {
    submit(taskId, task) {
      if (stopped) throw new Error("the task runner is stopping");
      const p = new Promise<void>((resolve) => setImmediate(resolve))
        .then(task)
        .catch((err) => onError(taskId, err))
        .finally(() => running.delete(taskId));
      running.set(taskId, p);
    },
    async idle() {
      while (running.size > 0) await Promise.all(running.values());
    },
    async stop() {
      stopped = true;
      await Promise.all(running.values());
    },
  };
}

/** Lets other work run between engine chunks. */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
