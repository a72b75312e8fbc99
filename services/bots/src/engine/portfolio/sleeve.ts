import type { Costs } from "../../execution/costs.js";
import type { Account } from "../../execution/simulated-broker.js";
import type { Order } from "../../execution/events.js";
import type { BrokerReport } from "../../execution/simulated-broker.js";
import { SimulatedBroker } from "../../execution/simulated-broker.js";
import { TradeBook } from "../trade-book.js";

/**
 * One symbol of a portfolio: its venue (the simulated broker every run fills on, its cash a
 * running sum of this symbol's flows from 0, so the portfolio's one cash balance is the start
 * plus every sleeve's), its trades and the figures its results report.
 */
export class Sleeve implements BrokerReport {
  readonly broker: SimulatedBroker;
  readonly book = new TradeBook();
  /** The target weight the position follows (NaN before the first decision). */
  held = NaN;
  /** The target last asked (a short refused leaves `held` at 0 and this at the short asked). */
  asked = NaN;
  /** The last close seen: the price the position is valued at, also across a gap. */
  lastClose = NaN;
  lastTime = NaN;
  /** Average price of the position, for a strategy that reads it. */
  averagePrice = 0;
  fees = 0;
  borrow = 0;
  /** Sum of |units · price| of every fill. */
  traded = 0;
  trades = 0;
  wins = 0;
  tradeCash = 0;
  barsHeld = 0;
  peakPnl = 0;
  maxDrawdown = 0;
  /** Fills since the host was last told (the time of the bar whose open filled them). */
  fillTime = NaN;
  /** Whether a host hears of fills (a built-in strategy does not: nothing would drain them). */
  listening = false;
  readonly fillsDue: { order: Order; signed: number; price: number; fee: number }[] = [];

  constructor(
    readonly symbol: string,
    readonly index: number,
    costs: Costs,
    event?: BrokerReport["event"],
    /** A resumed session's position and working orders; `idPrefix` goes before the symbol's. */
    account: Omit<Account, "cash"> = { units: 0 },
  ) {
    // The symbol prefixes its order ids, so ids stay unique across the portfolio.
    this.broker = new SimulatedBroker(
      symbol,
      { ...account, cash: 0, idPrefix: `${account.idPrefix ?? ""}${symbol}:` },
      costs,
      event ? { event, fill: (s, p, f, o) => this.fill(s, p, f, o) } : this,
    );
  }

  get units(): number {
    return this.broker.units;
  }

  /** The position once the orders working now fill (what a threshold must count). */
  unitsAfterWorking(): number {
    let u = this.broker.units;
    for (const o of this.broker.openOrders) u += o.side === "buy" ? o.units : -o.units;
    return u;
  }

  /** The symbol's P&L so far: its cash flows, borrow paid, and the position at the last close. */
  pnl(): number {
    const units = this.broker.units;
    return this.broker.cash - this.borrow + (units !== 0 ? units * this.lastClose : 0);
  }

  fill(signed: number, price: number, fee: number, order: Order): void {
    this.book.fill(this.fillTime, signed, price, fee);
    const before = this.broker.units - signed;
    const after = this.broker.units;
    if (after === 0) this.averagePrice = 0;
    else if (before === 0 || Math.sign(after) !== Math.sign(before)) this.averagePrice = price;
    else if (Math.sign(signed) === Math.sign(before))
      this.averagePrice =
        (this.averagePrice * Math.abs(before) + price * Math.abs(signed)) / Math.abs(after);
    this.fees += fee;
    this.traded += Math.abs(signed) * price;
    this.tradeCash += -signed * price - fee;
    if (after === 0) {
      this.trades++;
      if (this.tradeCash > 0) this.wins++;
      this.tradeCash = 0;
    }
    if (this.listening) this.fillsDue.push({ order, signed, price, fee });
  }
}
