import { normalCdf, normalInv } from "./normal.js";
import { moments } from "./moments.js";

/** The Euler-Mascheroni constant. */
export const EULER_GAMMA = 0.5772156649015329;

/**
 * Probabilistic Sharpe Ratio (Bailey and López de Prado, 2012): the probability that the true
 * Sharpe ratio exceeds `benchmark`, given T observations with the given skewness and
 * (non-excess) kurtosis. Sharpe ratios are per period (not annualised).
 *   PSR = Φ( (SR − SR*) √(T − 1) / √(1 − γ3·SR + (γ4 − 1)/4 · SR²) )
 */
export function probabilisticSharpeRatio(i: {
  sharpe: number;
  benchmark: number;
  observations: number;
  skewness: number;
  kurtosis: number;
}): number {
  if (i.observations < 2)
    throw new RangeError(`observations must be at least 2, got ${i.observations}`);
  const denominator = 1 - i.skewness * i.sharpe + ((i.kurtosis - 1) / 4) * i.sharpe * i.sharpe;
  if (!(denominator > 0))
    throw new RangeError(
      "skewness and kurtosis give a non-positive variance of the Sharpe estimate",
    );
  return normalCdf(
    ((i.sharpe - i.benchmark) * Math.sqrt(i.observations - 1)) / Math.sqrt(denominator),
  );
}

/**
 * Expected maximum Sharpe ratio among N independent trials whose Sharpe ratios have variance V
 * (Bailey and López de Prado, 2014, eq. 7 via the False Strategy theorem):
 *   E[max SR] = √V · ((1 − γ) Φ⁻¹(1 − 1/N) + γ Φ⁻¹(1 − 1/(N e)))
 * In the same units as the trials' Sharpe ratios.
 */
export function expectedMaxSharpe(trials: number, varianceOfTrialSharpes: number): number {
  if (!Number.isInteger(trials) || trials < 2)
    throw new RangeError(
      `the number of trials must be a whole number of at least 2, got ${trials}`,
    );
  if (!(varianceOfTrialSharpes >= 0))
    throw new RangeError("the variance of the trials' Sharpe ratios must be non-negative");
  return (
    Math.sqrt(varianceOfTrialSharpes) *
    ((1 - EULER_GAMMA) * normalInv(1 - 1 / trials) +
      EULER_GAMMA * normalInv(1 - 1 / (trials * Math.E)))
  );
}

/**
 * Deflated Sharpe Ratio (Bailey and López de Prado, 2014): the PSR of the selected strategy
 * against the Sharpe ratio expected from the best of N unskilled trials. Inputs are annualised
 * (as the paper states its example) and de-annualised with √periodsPerYear; the paper's example
 * (N 100, V 0.5, SR 2.5, T 1250, skew −3, kurtosis 10, 250 periods) gives 0.9004.
 */
export function deflatedSharpeRatio(i: {
  annualisedSharpe: number;
  trials: number;
  varianceOfAnnualisedTrialSharpes: number;
  observations: number;
  skewness: number;
  kurtosis: number;
  periodsPerYear?: number;
}): number {
  const root = Math.sqrt(i.periodsPerYear ?? 252);
  const benchmark = expectedMaxSharpe(i.trials, i.varianceOfAnnualisedTrialSharpes) / root;
  return probabilisticSharpeRatio({
    sharpe: i.annualisedSharpe / root,
    benchmark,
    observations: i.observations,
    skewness: i.skewness,
    kurtosis: i.kurtosis,
  });
}

/**
 * DSR straight from data: the selected strategy's returns and every trial's returns (the
 * selected one included), as the trial ledger records them. N is the number of trials given,
 * never a self-reported count.
 */
export function deflatedSharpeFromTrials(
  selected: ArrayLike<number>,
  trials: ArrayLike<number>[],
  periodsPerYear = 252,
): { dsr: number; trials: number; expectedMaxSharpe: number; annualisedSharpe: number } {
  if (trials.length < 2) throw new RangeError(`DSR needs at least 2 trials, got ${trials.length}`);
  const m = moments(selected);
  const root = Math.sqrt(periodsPerYear);
  const srs = trials.map((t) => {
    const tm = moments(t);
    return (tm.mean / tm.std) * root;
  });
  const meanSr = srs.reduce((a, b) => a + b, 0) / srs.length;
  const variance = srs.reduce((a, b) => a + (b - meanSr) ** 2, 0) / (srs.length - 1);
  const annualised = (m.mean / m.std) * root;
  const dsr = deflatedSharpeRatio({
    annualisedSharpe: annualised,
    trials: trials.length,
    varianceOfAnnualisedTrialSharpes: variance,
    observations: m.n,
    skewness: m.skewness,
    kurtosis: m.kurtosis,
    periodsPerYear,
  });
  return {
    dsr,
    trials: trials.length,
    expectedMaxSharpe: expectedMaxSharpe(trials.length, variance),
    annualisedSharpe: annualised,
  };
}
