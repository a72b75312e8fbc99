/**
 * How long a failed delivery waits before its next attempt: exponential from `baseMs`, capped at
 * `maxMs`, with "equal jitter" (half fixed, half random) so receivers that failed together are
 * not all retried in the same instant, yet no retry comes sooner than half its step.
 */
export function retryDelayMs(
  failedAttempts: number,
  opts: { baseMs: number; maxMs: number },
  random: () => number = Math.random,
): number {
  const step = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.max(0, failedAttempts - 1));
  return Math.round(step / 2 + random() * (step / 2));
}
