/** Sample moments of a return series, the inputs of PSR and DSR. */
export interface Moments {
  n: number;
  mean: number;
  /** Sample standard deviation (n - 1). */
  std: number;
  skewness: number;
  /** Non-excess kurtosis: 3 for normal returns, as Bailey and López de Prado write it. */
  kurtosis: number;
}

export function moments(returns: ArrayLike<number>): Moments {
  const n = returns.length;
  if (n < 3) throw new RangeError(`need at least 3 returns, got ${n}`);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const r = returns[i]!;
    if (!Number.isFinite(r)) throw new RangeError(`return ${i} is not a finite number`);
    sum += r;
  }
  const mean = sum / n;
  let m2 = 0;
  let m3 = 0;
  let m4 = 0;
  for (let i = 0; i < n; i++) {
    const d = returns[i]! - mean;
    const d2 = d * d;
    m2 += d2;
    m3 += d2 * d;
    m4 += d2 * d2;
  }
  if (m2 === 0) throw new RangeError("returns have zero variance; a Sharpe ratio is undefined");
  const pop = m2 / n;
  return {
    n,
    mean,
    std: Math.sqrt(m2 / (n - 1)),
    skewness: m3 / n / pop ** 1.5,
    kurtosis: m4 / n / pop ** 2,
  };
}

/** Per-period Sharpe ratio (mean over sample standard deviation, no risk-free rate). */
export function sharpe(returns: ArrayLike<number>): number {
  const m = moments(returns);
  return m.mean / m.std;
}

/** Annualised Sharpe ratio: per-period Sharpe times the square root of periods per year. */
export function annualisedSharpe(returns: ArrayLike<number>, periodsPerYear = 252): number {
  return sharpe(returns) * Math.sqrt(periodsPerYear);
}
