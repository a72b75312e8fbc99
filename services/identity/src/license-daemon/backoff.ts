/**
 * "Full jitter" exponential backoff: a random delay between 0 and min(cap, base * 2^attempt), so
 * many holders cut off by one outage do not all come back at the same instant.
 *
 * @example setTimeout(retry, backoffMs(attempt, 1000, 900_000));
 */
export function backoffMs(
  attempt: number,
  baseMs: number,
  capMs: number,
  random = Math.random,
): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.max(baseMs / 10, Math.round(random() * ceiling));
}
