/**
 * Nearest-rank percentiles of a sample (sorted in place), in its own unit.
 *
 * @example percentiles(Float64Array.of(3, 1, 2)) // { p50: 2, p99: 3, max: 3 }
 */
export function percentiles(sample: Float64Array): { p50: number; p99: number; max: number } {
  if (sample.length === 0) return { p50: 0, p99: 0, max: 0 };
  sample.sort();
  const at = (q: number) => sample[Math.min(sample.length - 1, Math.ceil(q * sample.length) - 1)]!;
  return { p50: at(0.5), p99: at(0.99), max: sample[sample.length - 1]! };
}
