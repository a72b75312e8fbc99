/**
 * Runs background tasks (backtests) off the request path: the request returns at once with a
 * task id, the task runs on the event loop in short slices (the engine yields between chunks),
 * so no request waits behind it. `stop` lets running tasks finish before shutdown.
 */
export interface TaskRunner {
  submit(taskId: string, task: () => Promise<void>): void;
  /** Asks those of the tasks that run here to stop at their next slice. */
  cancel(taskIds: readonly string[]): void;
  cancelled(taskId: string): boolean;
  /** The tasks submitted here that have not settled yet. */
  ids(): string[];
  /** False once `stop` was called: nothing may be submitted any more. */
  accepting(): boolean;
  /** Resolves when every task submitted so far has settled (tests, shutdown). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export function createTaskRunner(onError: (taskId: string, err: unknown) => void): TaskRunner {
  const running = new Map<string, Promise<void>>();
  const cancelledIds = new Set<string>();
  let stopped = false;
  return {
    submit(taskId, task) {
      if (stopped) throw new Error("the task runner is stopping");
      const p = new Promise<void>((resolve) => setImmediate(resolve))
        .then(task)
        .catch((err) => onError(taskId, err))
        .finally(() => {
          running.delete(taskId);
          cancelledIds.delete(taskId);
        });
      running.set(taskId, p);
    },
    cancel(taskIds) {
      for (const id of taskIds) if (running.has(id)) cancelledIds.add(id);
    },
    cancelled: (taskId) => cancelledIds.has(taskId),
    ids: () => [...running.keys()],
    accepting: () => !stopped,
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

/** Thrown inside a task that was cancelled; its deployment becomes halted, not failed. */
export class TaskCancelled extends Error {
  constructor() {
    super("halted by request");
  }
}
