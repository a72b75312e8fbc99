import { EquitySeries } from "../equity-series.js";
import { riskAdjusted, type RunMetrics } from "../metrics.js";
import type { Trade } from "../trade-book.js";
import type { SymbolGaps } from "./aligned.js";
import type { Sleeve } from "./sleeve.js";

const DAY_MS = 86_400_000;

/** One symbol's share of a portfolio run (GET results' `symbols`). */
export interface SymbolResult {
  symbol: string;
  /** Its cash flows, fees and borrow included, plus its position at its last close. */
  pnl: number;
  /** The largest fall of its P&L from its running peak, as a fraction of the starting cash. */
  maxDrawdown: number;
  /** Share of the run's bars it held a position at. */
  exposure: number;
  /** Notional it traded over the portfolio's average equity. */
  turnover: number;
  trades: number;
  winRate: number;
  fees: number;
  borrowCost: number;
  /** Its position at the end, in units, and valued at its last close. */
  units: number;
  value: number;
}

/** What a portfolio's run adds to a run's figures. */
export interface PortfolioResult {
  symbols: SymbolResult[];
  gaps: SymbolGaps[];
  /** Notional traded over the average equity, every symbol together. */
  turnover: number;
  /** Mean over the bars of the gross position value over the equity. */
  grossExposure: number;
  borrowCost: number;
}

/** A trade of a portfolio run: which symbol it was of. */
export type SymbolTrade = Trade & { symbol: string };

/**
 * The portfolio's books: its one cash balance (the start plus every sleeve's flows, less borrow
 * paid), its equity marked at every bar, its drawdown, days and curve, and at the end the
 * figures of a run (RunMetrics, the same a one-symbol run reports) and of each symbol.
 */
export class PortfolioBooks {
  private readonly series = new EquitySeries();
  private due = 1;
  private bars = 0;
  private barsInMarket = 0;
  private grossSum = 0;
  private equitySum = 0;
  private peak: number;
  private trough: number;
  private maxDrawdown = 0;
  private lastEquity: number;
  private lastTime = NaN;
  private day = NaN;
  private nextDay = -Infinity;
  private dayStartEquity: number;
  private readonly daily: number[] = [];
  private readonly days: number[] = [];

  constructor(
    private readonly start: number,
    private readonly sleeves: readonly Sleeve[],
  ) {
    this.peak = this.trough = this.lastEquity = this.dayStartEquity = start;
  }

  cash(): number {
    let c = this.start;
    for (const s of this.sleeves) c += s.broker.cash - s.borrow;
    return c;
  }

  equity(): number {
    let e = this.cash();
    for (const s of this.sleeves) if (s.units !== 0) e += s.units * s.lastClose;
    return e;
  }

  grossExposure(): number {
    let g = 0;
    for (const s of this.sleeves) if (s.units !== 0) g += Math.abs(s.units) * s.lastClose;
    return g;
  }

  /** The close of a bar of the clock: every sleeve was marked at its own close (or its last). */
  mark(time: number): void {
    // One pass over the sleeves: this runs at every bar of the clock.
    let equity = this.start;
    let gross = 0;
    const sleeves = this.sleeves;
    const start = this.start;
    for (let i = 0; i < sleeves.length; i++) {
      const s = sleeves[i]!;
      const broker = s.broker;
      let pnl = broker.cash - s.borrow;
      const units = broker.units;
      if (units !== 0) {
        const value = units * s.lastClose;
        pnl += value;
        gross += value < 0 ? -value : value;
        s.barsHeld++;
      }
      equity += pnl;
      // The symbol's drawdown: of its P&L from its peak, against the portfolio's start.
      if (pnl > s.peakPnl) s.peakPnl = pnl;
      else if ((s.peakPnl - pnl) / start > s.maxDrawdown) s.maxDrawdown = (s.peakPnl - pnl) / start;
    }
    this.bars++;
    if (gross > 0) this.barsInMarket++;
    this.grossSum += equity > 0 ? gross / equity : 0;
    this.equitySum += equity;
    if (equity > this.peak) this.peak = this.trough = equity;
    else if (equity < this.trough) {
      // Only a new low under the same peak can deepen the drawdown (as a one-symbol run's books).
      this.trough = equity;
      const dd = (this.peak - equity) / this.peak;
      if (dd > this.maxDrawdown) this.maxDrawdown = dd;
      this.series.deepen(time, equity, dd);
    }
    if (--this.due === 0) this.due = this.series.close(time, equity, this.peak);
    if (time >= this.nextDay) {
      if (!Number.isNaN(this.day)) {
        this.daily.push(this.lastEquity / this.dayStartEquity - 1);
        this.days.push(this.day);
        this.dayStartEquity = this.lastEquity;
      }
      this.day = Math.floor(time / DAY_MS);
      this.nextDay = (this.day + 1) * DAY_MS;
    }
    this.lastEquity = equity;
    this.lastTime = time;
  }

  finish(gaps: readonly SymbolGaps[]): RunMetrics & { portfolio: PortfolioResult } {
    const daily = Float64Array.from(
      Number.isNaN(this.day)
        ? this.daily
        : [...this.daily, this.lastEquity / this.dayStartEquity - 1],
    );
    const days = Number.isNaN(this.day) ? this.days : [...this.days, this.day];
    if (this.due !== this.series.bucketBars && !Number.isNaN(this.lastTime))
      this.series.close(this.lastTime, this.lastEquity, this.peak);
    const avgEquity = this.bars > 0 ? this.equitySum / this.bars : this.start;
    const symbols: SymbolResult[] = [];
    const trades: SymbolTrade[] = [];
    let tradeCount = 0;
    let wins = 0;
    let fees = 0;
    let traded = 0;
    let dropped = 0;
    for (const s of this.sleeves) {
      const open = s.units !== 0 ? 1 : 0;
      const openWin = open && s.tradeCash + s.units * s.lastClose > 0 ? 1 : 0;
      const count = s.trades + open;
      tradeCount += count;
      wins += s.wins + openWin;
      fees += s.fees;
      traded += s.traded;
      dropped += s.book.dropped;
      for (const t of s.book.finish(s.lastTime, s.lastClose))
        trades.push({ ...t, symbol: s.symbol });
      symbols.push({
        symbol: s.symbol,
        pnl: s.pnl(),
        maxDrawdown: s.maxDrawdown,
        exposure: this.bars > 0 ? s.barsHeld / this.bars : 0,
        turnover: avgEquity > 0 ? s.traded / avgEquity : 0,
        trades: count,
        winRate: count > 0 ? (s.wins + openWin) / count : 0,
        fees: s.fees,
        borrowCost: s.borrow,
        units: s.units,
        value: s.units !== 0 ? s.units * s.lastClose : 0,
      });
    }
    trades.sort((a, b) => a.entryTime - b.entryTime || (a.symbol < b.symbol ? -1 : 1));
    const { sharpe, sortino } = riskAdjusted(daily);
    const borrowCost = this.sleeves.reduce((n, s) => n + s.borrow, 0);
    return {
      bars: this.bars,
      totalReturn: this.lastEquity / this.start - 1,
      pnl: this.lastEquity - this.start,
      finalEquity: this.lastEquity,
      sharpe,
      sortino,
      maxDrawdown: this.maxDrawdown,
      trades: tradeCount,
      winRate: tradeCount > 0 ? wins / tradeCount : 0,
      exposure: this.bars > 0 ? this.barsInMarket / this.bars : 0,
      fees,
      dailyReturns: daily,
      results: {
        curve: this.series.points(),
        dailyDates: days.map((d) => d * DAY_MS),
        trades,
        tradesDropped: dropped,
      },
      portfolio: {
        symbols,
        gaps: [...gaps],
        turnover: avgEquity > 0 ? traded / avgEquity : 0,
        grossExposure: this.bars > 0 ? this.grossSum / this.bars : 0,
        borrowCost,
      },
    };
  }
}
