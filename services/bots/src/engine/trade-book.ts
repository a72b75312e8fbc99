import { emptyObjects } from "../execution/warm-shapes.js";

/** One round trip: from the fill that opened a position from flat to the fill that closed it. */
export interface Trade {
  side: "long" | "short";
  /** Time (epoch ms) of the opening fill, and the average price of the fills that added to it. */
  entryTime: number;
  entryPrice: number;
  /** Time of the closing fill and the average price of the fills that reduced it; for a trade
   * still open at the end of the run, the last bar's time and close (marked, not sold). */
  exitTime: number;
  exitPrice: number;
  /** The largest size the position reached, in units. */
  units: number;
  /** Net result: every cash flow of the trade's fills, fees included (marked at the end if open). */
  pnl: number;
  fees: number;
  closed: boolean;
}

/**
 * A trade as the book builds it. A class, not an object literal: V8 judges a literal's
 * allocation site by how many of its objects survive collections and, when that judgement
 * changes, throws away the code that allocates there; how often the collector runs depends on
 * the strategy's own garbage, so a long-running process's next backtest paid for it.
 */
class BookTrade implements Trade {
  // Declared in the order a trade is listed (its JSON's), and each set in the constructor.
  side: "long" | "short";
  entryTime: number;
  entryPrice: number;
  exitTime: number;
  exitPrice: number;
  units: number;
  pnl: number;
  fees: number;
  closed: boolean;
  constructor(side: "long" | "short", time: number, price: number) {
    this.side = side;
    this.entryTime = time;
    this.entryPrice = price;
    this.exitTime = time;
    this.exitPrice = price;
    this.units = 0;
    this.pnl = 0;
    this.fees = 0;
    this.closed = false;
  }
}

/** Trades a run keeps at most: beyond, the run still counts them (its metrics) but lists none. */
export const MAX_TRADES_KEPT = 100_000;

/**
 * Builds the trade list from fills, in order. It is called once per fill (never per bar), so it
 * costs a backtest nothing between orders. A fill that crosses zero (long to short at once) ends
 * the trade with the part that closes it and opens the next with the rest.
 */
export class TradeBook {
  readonly trades: Trade[] = emptyObjects();
  /** Closed trades past `limit`, counted and not kept (memory stays bounded on any run). */
  dropped = 0;
  // The numbers below hold fractions once trading starts, so each starts as one: a field that
  // starts as the integer 0 changes the book's shape at the first fractional fill, and code the JIT
  // compiled against the first run's books recompiles in the next run of a long-running process.
  /** The position; -0 is flat like 0 (it is only compared with 0 and added to). */
  private units = -0;
  private open: Trade | undefined;
  // The open trade's averages: set at its opening fill, before any read.
  private added = NaN;
  private addedCost = NaN;
  private reduced = NaN;
  private reducedValue = NaN;

  constructor(private readonly limit = MAX_TRADES_KEPT) {}

  fill(time: number, signed: number, price: number, fee: number): void {
    if (signed === 0) return;
    const before = this.units;
    const after = before + signed;
    if (before !== 0 && Math.sign(after) !== Math.sign(before)) {
      // The part that takes the position to zero closes the trade; the rest opens a new one.
      const closing = -before;
      const share = Math.abs(closing / signed);
      this.apply(time, closing, price, fee * share);
      if (after !== 0) this.apply(time, after, price, fee * (1 - share));
      return;
    }
    this.apply(time, signed, price, fee);
  }

  /** A fill that does not cross zero. */
  private apply(time: number, signed: number, price: number, fee: number): void {
    if (this.units === 0) {
      this.open = new BookTrade(signed > 0 ? "long" : "short", time, price);
      this.added = this.addedCost = this.reduced = this.reducedValue = 0;
    }
    const t = this.open!;
    const growing = Math.sign(signed) === Math.sign(this.units) || this.units === 0;
    this.units += signed;
    t.pnl += -signed * price - fee;
    t.fees += fee;
    if (growing) {
      this.added += Math.abs(signed);
      this.addedCost += Math.abs(signed) * price;
      t.entryPrice = this.addedCost / this.added;
      t.units = Math.max(t.units, Math.abs(this.units));
    } else {
      this.reduced += Math.abs(signed);
      this.reducedValue += Math.abs(signed) * price;
      t.exitPrice = this.reducedValue / this.reduced;
      t.exitTime = time;
    }
    if (Math.abs(this.units) < 1e-12) {
      this.units = 0;
      t.closed = true;
      if (this.trades.length < this.limit) this.trades.push(t);
      else this.dropped++;
      this.open = undefined;
    }
  }

  /** The trades, with one still open marked at the last close (its exit is that bar). */
  finish(lastTime: number, lastClose: number): Trade[] {
    const t = this.open;
    if (!t || this.units === 0) return this.trades;
    const units = this.units;
    const marked = units * lastClose;
    const reducedValue = this.reducedValue + Math.abs(units) * lastClose;
    return [
      ...this.trades,
      {
        ...t,
        exitTime: lastTime,
        exitPrice: reducedValue / (this.reduced + Math.abs(units)),
        pnl: t.pnl + marked,
      },
    ];
  }
}
