import type { EquityPoint } from "./equity-series.js";
import type { Trade } from "./trade-book.js";

/** What a finished backtest keeps besides its figures: the curve, the days and the trades. */
export interface RunResults {
  curve: { points: EquityPoint[]; downsampled: boolean; bucketBars: number };
  /** Midnight UTC (epoch ms) of each daily return's day. */
  dailyDates: number[];
  trades: Trade[];
  /** Trades past MAX_TRADES_KEPT, not listed (the first ones are). */
  tradesDropped: number;
}

/** What a finished run reports (result_summary), plus the daily returns kept for the evidence bundle. */
export interface RunMetrics {
  bars: number;
  totalReturn: number;
  pnl: number;
  finalEquity: number;
  sharpe: number;
  sortino: number;
  maxDrawdown: number;
  trades: number;
  winRate: number;
  exposure: number;
  fees: number;
  dailyReturns: Float64Array;
  /** The curve and trades of the run. */
  results?: RunResults;
}

/** Annualised Sharpe and Sortino of daily returns (252 trading days), zero when undefined. */
export function riskAdjusted(
  daily: Float64Array,
  periodsPerYear = 252,
): { sharpe: number; sortino: number } {
  const n = daily.length;
  if (n < 2) return { sharpe: 0, sortino: 0 };
  let sum = 0;
  for (let i = 0; i < n; i++) sum += daily[i]!;
  const mean = sum / n;
  let ss = 0;
  let down = 0;
  for (let i = 0; i < n; i++) {
    const d = daily[i]! - mean;
    ss += d * d;
    if (daily[i]! < 0) down += daily[i]! * daily[i]!;
  }
  const sd = Math.sqrt(ss / (n - 1));
  const dd = Math.sqrt(down / n);
  const root = Math.sqrt(periodsPerYear);
  return { sharpe: sd > 0 ? (mean / sd) * root : 0, sortino: dd > 0 ? (mean / dd) * root : 0 };
}
