/**
 * How much a stress replay compresses the bot's clock so that its own orders reach the demanded
 * rate: the smallest factor `c` (at least `multiple`, so every stretch of the data set runs at
 * least `multiple` times faster) such that some second of the compressed clock carries
 * `demanded` order messages, judged from a rehearsal over the data set at its own clock
 * (`times` ascending, `counts` the messages sent at each). A strategy that never sends that many
 * within any stretch gets the factor at which its busiest stretch fits in one second, and
 * `reachable` false: the replay then says the demanded rate was not reached rather than padding
 * the load with orders the bot would not send. `ceiling` is the factor that puts the whole
 * data set in one second: no compression beyond it brings more orders together.
 *
 * @example compressionFor([0, 10_000], [1, 1], 2, 2) // { factor: ~10, reachable: true, ... }
 */
export function compressionFor(
  times: readonly number[],
  counts: readonly number[],
  demanded: number,
  multiple: number,
): { factor: number; reachable: boolean; ceiling: number } {
  const most = (w: number) => busiest(times, counts, w);
  const span = times.length > 0 ? times[times.length - 1]! - times[0]! : 0;
  // A hair more, so bars that must share a second still do after rounding on the ms clock.
  const margin = 1 + 1e-6;
  const ceiling = Math.max(multiple, (span / 1000 + 1) * margin);
  let hi = span / 1000 + 1;
  const best = most(hi * 1000);
  const reachable = best >= demanded;
  const target = reachable ? demanded : best;
  let lo = 1;
  if (target <= 0 || most(lo * 1000) >= target)
    return { factor: Math.max(multiple, 1), reachable, ceiling };
  // most() only grows with the window: halve the bracket to a relative precision of 1e-9.
  for (let k = 0; k < 100 && hi - lo > hi * 1e-9; k++) {
    const mid = (lo + hi) / 2;
    if (most(mid * 1000) >= target) hi = mid;
    else lo = mid;
  }
  return { factor: Math.max(multiple, hi * margin), reachable, ceiling };
}

/** The most messages within any window (t - w, t] of the clock: the controls' own window. */
function busiest(times: readonly number[], counts: readonly number[], w: number): number {
  let most = 0;
  let sum = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    sum += counts[i]!;
    while (times[j]! <= times[i]! - w) sum -= counts[j++]!;
    if (sum > most) most = sum;
  }
  return most;
}
