import type { Bars } from "./bars.js";
import { riskAdjusted, type RunMetrics } from "./metrics.js";
import type { EngineSettings } from "./settings.js";
import type { Strategy } from "./strategies/strategy.js";

/** What the engine tells an observer (the runtime event-sources these). */
export type EngineEvent =
  | {
      type: "order_filled";
      time: number;
      side: "buy" | "sell";
      units: number;
      price: number;
      fee: number;
    }
  | { type: "position_changed"; time: number; units: number; target: number };

const DAY_MS = 86_400_000;

/**
 * The event-driven backtest engine. Bars arrive one at a time (in chunks, so 50 million bars
 * never sit in memory at once). No look-ahead: the target a strategy answers at bar t's close is
 * filled at bar t+1's open, with slippage against the trader and a fee on the notional.
 */
export class BacktestRun {
  private cash: number;
  private units = 0;
  private target = 0;
  private pendingTarget = 0;
  private readonly slip: number;
  private readonly feeRate: number;
  private bars = 0;
  private barsInMarket = 0;
  private fees = 0;
  private peak: number;
  private maxDrawdown = 0;
  private lastEquity: number;
  private day = NaN;
  private dayStartEquity: number;
  private readonly daily: number[] = [];
  private trades = 0;
  private wins = 0;
  private tradeCash = 0;

  constructor(
    private readonly strategy: Strategy,
    private readonly settings: EngineSettings,
    private readonly onEvent?: (e: EngineEvent) => void,
  ) {
    this.cash = settings.initialCash;
    this.slip = settings.slippageBps / 10_000;
    this.feeRate = settings.feeBps / 10_000;
    this.peak = settings.initialCash;
    this.lastEquity = settings.initialCash;
    this.dayStartEquity = settings.initialCash;
  }

  /** Runs the next chunk of bars, continuing where the previous chunk ended. */
  feed(b: Bars): void {
    const { time, open, high, low, close } = b;
    const strategy = this.strategy;
    for (let t = 0, n = b.length; t < n; t++) {
      if (this.pendingTarget !== this.target) this.rebalance(open[t]!, time[t]!);
      const c = close[t]!;
      const equity = this.cash + this.units * c;
      if (equity > this.peak) this.peak = equity;
      else {
        const dd = (this.peak - equity) / this.peak;
        if (dd > this.maxDrawdown) this.maxDrawdown = dd;
      }
      const d = Math.floor(time[t]! / DAY_MS);
      if (d !== this.day) {
        if (!Number.isNaN(this.day)) {
          this.daily.push(this.lastEquity / this.dayStartEquity - 1);
          this.dayStartEquity = this.lastEquity;
        }
        this.day = d;
      }
      this.lastEquity = equity;
      if (this.units !== 0) this.barsInMarket++;
      this.pendingTarget = strategy.onBar(c, high[t]!, low[t]!);
    }
    this.bars += b.length;
  }

  private rebalance(price: number, time: number): void {
    const next = this.pendingTarget;
    // A flip closes the old position first, so each round trip is counted on its own.
    if (this.units !== 0 && (next === 0 || Math.sign(next) !== Math.sign(this.units))) {
      this.fill(-this.units, price, time);
      this.trades++;
      if (this.tradeCash > 0) this.wins++;
      this.tradeCash = 0;
    }
    if (next !== 0) {
      const equity = this.cash + this.units * price;
      const desired = (next * this.settings.positionSize * equity) / price;
      this.fill(desired - this.units, price, time);
    }
    this.target = next;
    this.onEvent?.({ type: "position_changed", time, units: this.units, target: next });
  }

  private fill(delta: number, open: number, time: number): void {
    if (delta === 0) return;
    const price = open * (delta > 0 ? 1 + this.slip : 1 - this.slip);
    const fee = Math.abs(delta) * price * this.feeRate;
    const flow = -delta * price - fee;
    this.cash += flow;
    this.tradeCash += flow;
    this.units += delta;
    this.fees += fee;
    this.onEvent?.({
      type: "order_filled",
      time,
      side: delta > 0 ? "buy" : "sell",
      units: Math.abs(delta),
      price,
      fee,
    });
  }

  /** Closes the books: the open position is marked at the last close, not sold. */
  finish(): RunMetrics {
    const daily = Float64Array.from(
      Number.isNaN(this.day)
        ? this.daily
        : [...this.daily, this.lastEquity / this.dayStartEquity - 1],
    );
    const { sharpe, sortino } = riskAdjusted(daily);
    const initial = this.settings.initialCash;
    const openTrade = this.units !== 0 ? 1 : 0;
    // The open trade's result so far: its cash flows plus the position marked at the last close.
    const openWin = this.units !== 0 && this.tradeCash + (this.lastEquity - this.cash) > 0 ? 1 : 0;
    return {
      bars: this.bars,
      totalReturn: this.lastEquity / initial - 1,
      pnl: this.lastEquity - initial,
      finalEquity: this.lastEquity,
      sharpe,
      sortino,
      maxDrawdown: this.maxDrawdown,
      trades: this.trades + openTrade,
      winRate: this.trades + openTrade > 0 ? (this.wins + openWin) / (this.trades + openTrade) : 0,
      exposure: this.bars > 0 ? this.barsInMarket / this.bars : 0,
      fees: this.fees,
      dailyReturns: daily,
    };
  }
}

/** One whole backtest over bars already in memory. */
export function runBacktest(
  bars: Bars,
  strategy: Strategy,
  settings: EngineSettings,
  onEvent?: (e: EngineEvent) => void,
): RunMetrics {
  const run = new BacktestRun(strategy, settings, onEvent);
  run.feed(bars);
  return run.finish();
}
