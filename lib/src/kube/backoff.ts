/**
 * Exponential backoff with jitter for retrying calls to the API server: the n-th delay is drawn
 * between half and all of min(maxMs, minMs * 2^n), so many controllers that failed together do
 * not come back together. `reset()` after a success.
 *
 * @example
 * const b = createBackoff({ minMs: 200, maxMs: 30_000 });
 * setTimeout(retry, b.next());
 */
export function createBackoff(o: { minMs: number; maxMs: number; random?: () => number }): {
  next(): number;
  reset(): void;
  readonly failures: number;
} {
  const random = o.random ?? Math.random;
  let failures = 0;
  return {
    next() {
      const ceiling = Math.min(o.maxMs, o.minMs * 2 ** Math.min(failures, 30));
      failures++;
      return Math.round(ceiling / 2 + (random() * ceiling) / 2);
    },
    reset() {
      failures = 0;
    },
    get failures() {
      return failures;
    },
  };
}
