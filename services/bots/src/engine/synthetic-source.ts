import { allocateBars, type Bars } from "./bars.js";

export interface SyntheticOptions {
  seed: number;
  count: number;
  startMs?: number;
  intervalMs?: number;
  startPrice?: number;
}

/**
 * Deterministic synthetic bars for demos, tests and benchmarks: a random walk whose drift and
 * volatility switch between calm, trending and stressed regimes (a Markov chain), with GARCH(1,1)
 * volatility clustering and occasional gaps at the open. The same seed gives the same bars.
 */
export function generateBars(opts: SyntheticOptions, into?: Bars): Bars {
  const n = opts.count;
  const bars = into ?? allocateBars(n);
  const interval = opts.intervalMs ?? 86_400_000;
  let t = opts.startMs ?? Date.UTC(2020, 0, 1);
  let price = opts.startPrice ?? 100;
  let state = opts.seed >>> 0 || 1;
  const uniform = () => {
    // xorshift32: fast and good enough for synthetic prices.
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return (state + 0.5) / 4294967296;
  };
  const normal = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  // Regimes: [drift per day, long-run variance per day, chance to stay], scaled to the bar size
  // so that minute bars over decades stay as plausible as daily bars over years.
  const dt = interval / 86_400_000;
  const drift = [0.0002, 0.0008, -0.0012].map((d) => d * dt);
  const longVar = [0.0001, 0.00015, 0.0009].map((v) => v * dt);
  const stay = [0.985, 0.97, 0.93];
  let regime = 0;
  let variance = longVar[0]!;
  let lastShock = 0;
  for (let i = 0; i < n; i++) {
    if (uniform() > stay[regime]!) regime = (regime + 1 + Math.floor(uniform() * 2)) % 3;
    // GARCH(1,1): today's variance remembers yesterday's shock and variance.
    variance = longVar[regime]! * 0.05 + 0.1 * lastShock * lastShock + 0.85 * variance;
    const sd = Math.sqrt(variance);
    const gap = uniform() < 0.01 ? normal() * sd * 3 : 0;
    const open = price * Math.exp(gap);
    const shock = normal() * sd;
    lastShock = shock;
    const close = open * Math.exp(drift[regime]! + shock);
    const wick = Math.abs(normal()) * sd * 0.5;
    bars.time[i] = t;
    bars.open[i] = open;
    bars.close[i] = close;
    bars.high[i] = Math.max(open, close) * Math.exp(wick);
    bars.low[i] = Math.min(open, close) * Math.exp(-Math.abs(normal()) * sd * 0.5);
    bars.volume[i] = 1000 + Math.floor(uniform() * 9000);
    price = close;
    t += interval;
  }
  return bars;
}
