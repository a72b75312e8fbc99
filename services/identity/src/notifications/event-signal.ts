/**
 * Wakes this process's event streams when an event is recorded, so a stream answers at once
 * rather than at its next poll; streams still poll, for events another identity process recorded.
 */
export interface EventSignal {
  notify(): void;
  /** Resolves at the next notify, after `ms`, or when `signal` aborts, whichever comes first. */
  next(ms: number, signal: AbortSignal): Promise<void>;
}

export function createEventSignal(): EventSignal {
  const waiters = new Set<() => void>();
  return {
    notify() {
      for (const w of [...waiters]) w();
    },
    next(ms, signal) {
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          signal.removeEventListener("abort", done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        waiters.add(done);
        signal.addEventListener("abort", done, { once: true });
      });
    },
  };
}
