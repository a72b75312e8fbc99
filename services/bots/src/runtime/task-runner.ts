import { inBackground } from "@svc/lib/db";

/**
 * Runs background tasks (backtests, compliance runs) off the request path, at most `width` at
 * once: the request returns at once with a task id, and the task's computation runs on a worker
 * thread (a backtest: backtest-pool.ts) or on the event loop in short slices (a compliance run),
 * so no request waits behind it; the bound keeps the
 * event loop and the database pool from being shared by every task ever accepted at once. A task
 * submitted while every slot is taken waits here, in order. `stop` lets tasks finish before
 * shutdown.
 */
export interface TaskRunner {
  submit(taskId: string, task: () => Promise<void>): void;
  /** Asks those of the tasks that run here to stop at their next slice. */
  cancel(taskIds: readonly string[]): void;
  cancelled(taskId: string): boolean;
  /** The tasks submitted here that have not settled yet (running or waiting for a slot). */
  ids(): string[];
  /** Slots no task holds or waits for: how many more may start now. */
  free(): number;
  /** Tasks waiting here for a slot. */
  waiting(): number;
  /** Called each time a task settles (a slot may be free). */
  onSettled(listener: () => void): void;
  /** False once `stop` was called: nothing may be submitted any more. */
  accepting(): boolean;
  /** Resolves when every task submitted so far has settled (tests, shutdown). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

export function createTaskRunner(
  onError: (taskId: string, err: unknown) => void,
  width = Number.POSITIVE_INFINITY,
): TaskRunner {
  const settled = new Map<string, Promise<void>>();
  const waitingTasks: Array<{ taskId: string; start: () => void }> = [];
  const cancelledIds = new Set<string>();
  const listeners: Array<() => void> = [];
  let running = 0;
  let stopped = false;
  const startNext = () => {
    while (running < width && waitingTasks.length > 0) {
      running++;
      waitingTasks.shift()!.start();
    }
  };
  return {
    submit(taskId, task) {
      if (stopped) throw new Error("the task runner is stopping");
      let start!: () => void;
      const p = new Promise<void>((resolve) => (start = () => setImmediate(resolve)))
        // Nobody waits on a task: a request for the embedded database's one connection goes first.
        .then(() => inBackground(task))
        .catch((err) => onError(taskId, err))
        .finally(() => {
          running--;
          settled.delete(taskId);
          cancelledIds.delete(taskId);
          startNext();
          for (const l of listeners) l();
        });
      settled.set(taskId, p);
      waitingTasks.push({ taskId, start });
      startNext();
    },
    cancel(taskIds) {
      for (const id of taskIds) if (settled.has(id)) cancelledIds.add(id);
    },
    cancelled: (taskId) => cancelledIds.has(taskId),
    ids: () => [...settled.keys()],
    free: () => Math.max(0, width - settled.size),
    waiting: () => waitingTasks.length,
    onSettled: (listener) => void listeners.push(listener),
    accepting: () => !stopped,
    async idle() {
      while (settled.size > 0) await Promise.all(settled.values());
    },
    async stop() {
      stopped = true;
      await Promise.all(settled.values());
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
