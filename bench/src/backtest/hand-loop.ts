// The reference the engine is measured against: one moving-average crossover (long or flat)
// written as a single loop with every piece of state in a local: the strategy's running sums, the
// sizing and dust rule, fills at the next open with slippage and a fee, the drawdown, the days.
// It gives the engine's figures to the last bit (the bench asserts it), with none of the
// engine's generality: no order path, no records, no curve or trade list, no volume limit.
import type { Bars, EngineSettings } from "@svc/bots/engine";

const DAY_MS = 86_400_000;
const RESUM_EVERY = 1_000_000;
const DUST_FRACTION = 1e-3;

export interface HandFigures {
  finalEquity: number;
  fees: number;
  trades: number;
  winRate: number;
  maxDrawdown: number;
  exposure: number;
  dailyReturns: Float64Array;
}

export class HandLoop {
  private readonly ring: Float64Array;
  private count = 0;
  private at = 0;
  private back: number;
  private fastSum = 0;
  private slowSum = 0;
  private held = NaN;
  private cash: number;
  private units = 0;
  /** Orders sent at the last close, filled at the next open: at most a close and an open. */
  private readonly pending = new Float64Array(2);
  private pendingCount = 0;
  private fees = 0;
  private tradeCash = 0;
  private trades = 0;
  private wins = 0;
  private peak: number;
  private trough: number;
  private maxDrawdown = 0;
  private lastEquity: number;
  private day = NaN;
  private nextDay = -Infinity;
  private dayStart: number;
  private readonly daily: number[] = [];
  private bars = 0;
  private inMarket = 0;

  constructor(
    private readonly fast: number,
    private readonly slow: number,
    private readonly s: EngineSettings,
  ) {
    this.ring = new Float64Array(slow);
    this.back = slow - fast;
    this.cash = this.peak = this.trough = this.lastEquity = this.dayStart = s.initialCash;
  }

  feed(b: Bars): void {
    const { time, open, close } = b;
    const { ring, fast, slow, pending } = this;
    const up = 1 + this.s.slippageBps / 10_000;
    const down = 1 - this.s.slippageBps / 10_000;
    const feeRate = this.s.feeBps / 10_000;
    const size = this.s.positionSize;
    let { count, at, back, fastSum, slowSum, held, cash, units, pendingCount, fees } = this;
    let { tradeCash, trades, wins, peak, trough, maxDrawdown, lastEquity, nextDay, inMarket } =
      this;
    for (let t = 0, n = b.length; t < n; t++) {
      for (let k = 0; k < pendingCount; k++) {
        const signed = pending[k]!;
        const price = open[t]! * (signed > 0 ? up : down);
        const fee = Math.abs(signed) * price * feeRate;
        cash -= signed * price + fee;
        units += signed;
        fees += fee;
        tradeCash += -signed * price - fee;
        if (units === 0) {
          trades++;
          if (tradeCash > 0) wins++;
          tradeCash = 0;
        }
      }
      pendingCount = 0;
      const c = close[t]!;
      const equity = cash + units * c;
      if (equity > peak) peak = trough = equity;
      else if (equity < trough) {
        trough = equity;
        const dd = (peak - equity) / peak;
        if (dd > maxDrawdown) maxDrawdown = dd;
      }
      if (time[t]! >= nextDay) {
        if (!Number.isNaN(this.day)) {
          this.daily.push(lastEquity / this.dayStart - 1);
          this.dayStart = lastEquity;
        }
        this.day = Math.floor(time[t]! / DAY_MS);
        nextDay = (this.day + 1) * DAY_MS;
      }
      lastEquity = equity;
      if (units !== 0) inMarket++;
      // The strategy: the same sums, in the same order, as MaCrossover.
      if (count >= slow) slowSum -= ring[at]!;
      if (count >= fast) fastSum -= ring[back]!;
      ring[at] = c;
      slowSum += c;
      fastSum += c;
      count++;
      at = at + 1 === slow ? 0 : at + 1;
      back = back + 1 === slow ? 0 : back + 1;
      let target = 0;
      if (count >= slow) {
        if (count % RESUM_EVERY === 0) {
          slowSum = fastSum = 0;
          for (let k = 0; k < slow; k++) {
            const v = ring[(count - 1 - k + slow * 2) % slow]!;
            slowSum += v;
            if (k < fast) fastSum += v;
          }
        }
        target = fastSum / fast > slowSum / slow ? 1 : 0;
      }
      if (target === held) continue;
      // The sizing rule: a change of side closes first; a re-sizing under the dust line is not sent.
      held = target;
      let from = units;
      if (units !== 0 && target === 0) {
        pending[pendingCount++] = -units;
        from = 0;
      }
      if (target !== 0) {
        const delta = (target * size * equity) / c - from;
        if (Math.abs(delta) * c >= Math.max(1e-9, Math.abs(equity) * DUST_FRACTION))
          pending[pendingCount++] = delta;
      }
    }
    Object.assign(this, { count, at, back, fastSum, slowSum, held, cash, units, pendingCount });
    Object.assign(this, { fees, tradeCash, trades, wins, peak, trough, maxDrawdown, lastEquity });
    Object.assign(this, { nextDay, inMarket, bars: this.bars + b.length });
  }

  finish(): HandFigures {
    const daily = Number.isNaN(this.day)
      ? this.daily
      : [...this.daily, this.lastEquity / this.dayStart - 1];
    const open = this.units !== 0 ? 1 : 0;
    const openWin = open && this.tradeCash + (this.lastEquity - this.cash) > 0 ? 1 : 0;
    return {
      finalEquity: this.lastEquity,
      fees: this.fees,
      trades: this.trades + open,
      winRate: this.trades + open > 0 ? (this.wins + openWin) / (this.trades + open) : 0,
      maxDrawdown: this.maxDrawdown,
      exposure: this.bars > 0 ? this.inMarket / this.bars : 0,
      dailyReturns: Float64Array.from(daily),
    };
  }
}
