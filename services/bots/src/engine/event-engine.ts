import type { ExecutionEvent } from "../execution/events.js";
import {
  createKernel,
  type AsyncStrategyHost,
  type ExecutionKernel,
  type KernelRisk,
  type StrategyHost,
} from "../execution/kernel/index.js";
import type { OrderPipeline } from "../execution/order-pipeline.js";
import type { PreTradeCheck } from "../execution/pre-trade.js";
import type { BrokerReport, SimulatedBroker } from "../execution/simulated-broker.js";
import { emptyNumbers, keepRun } from "../execution/warm-shapes.js";
import type { Bars } from "./bars.js";
import { EquitySeries } from "./equity-series.js";
import { namingSymbol } from "./symbol-events.js";
import { riskAdjusted, type RunMetrics } from "./metrics.js";
import { TradeBook } from "./trade-book.js";
import type { EngineSettings } from "./settings.js";
import { TARGET_BLOCK, type Strategy, type TargetSource } from "./strategies/strategy.js";

export interface BacktestOptions {
  /** Every order, fill and position change, in order: the records a paper session stores. */
  onEvent?: (e: ExecutionEvent) => void;
  /** Pre-trade checks on every order (none by default), before the risk controls. */
  checks?: readonly PreTradeCheck[];
  /** The bot's risk limits: the risk controls judge every order when any is set. */
  risk?: KernelRisk;
  /** The symbol traded (the BotSpec's first universe symbol), named in position records. */
  symbol?: string;
}

const DAY_MS = 86_400_000;

/** A host that answers asynchronously (a sandboxed strategy): its chunks go through `feedAsync`. */
export interface AsyncSignal {
  asyncHost: AsyncStrategyHost;
}

/** Bars of the vectorised path's target column: it stays in the core's cache for its scan. */
const BLOCK = TARGET_BLOCK;

/**
 * The backtest engine: a run's books (equity, drawdown, days, curve, trades) on the execution
 * kernel's bar step. Bars arrive in chunks (so 50 million bars never sit in memory at once) and
 * go through the kernel a paper session runs on: the strategy host answers at bar t's close, the
 * target is sized at that close (`OrderPipeline`) and filled by the simulated venue at bar t+1's
 * open, with slippage against the trader and a fee on the notional.
 *
 * Given a family's vectorised columns instead of a strategy (see `vectorisedRun`), a chunk runs
 * a block of bars at a time: the block's targets first (a strategy never sees the portfolio, so
 * its answers do not depend on the fills), then the same books and order path as a strategy's.
 */
export class BacktestRun {
  private readonly kernel: ExecutionKernel;
  private readonly broker: SimulatedBroker;
  private readonly pipeline: OrderPipeline;
  private readonly host: StrategyHost | undefined;
  private readonly asyncHost: AsyncStrategyHost | undefined;
  /** A built-in family's strategy: its bars and the books run in one loop (`scan`). */
  private readonly strategy: Strategy | undefined;
  /** The target of the bar `scan` stopped at (set there before it is read). */
  private target = NaN;
  private readonly columns: TargetSource | undefined;
  // Every field below that comes to hold fractions is declared NaN (a double) and set in the
  // constructor: a field that starts as an integer changes the run's shape at its first
  // fraction, and code run once per run (feed, feedBars' entry) would then be compiled in the
  // next run from the first run's shapes and deoptimise in the one after it.
  // The books as of the last fill, kept here so the per-bar loop reads its own fields only.
  private cash = NaN;
  private units = NaN;
  /** Orders went out at the last close: the next bar's open fills them. */
  private sent = false;
  /** The vectorised path's targets of the current block, one slot per bar. */
  private readonly targets = new Float64Array(BLOCK);
  private bars = 0;
  private barsInMarket = 0;
  private fees = NaN;
  private peak = NaN;
  private trough = NaN;
  private maxDrawdown = NaN;
  private lastEquity = NaN;
  private day = NaN;
  private nextDay = -Infinity;
  private dayStartEquity = NaN;
  private readonly daily: number[] = emptyNumbers();
  /** The day (days since the epoch) each of `daily` belongs to. */
  private readonly days: number[] = [];
  private readonly series = new EquitySeries();
  /** Bars left in the curve's open bucket: the one count the per-bar loop pays for the curve. */
  private due = 1;
  private readonly book = new TradeBook();
  /** Time of the bar whose open fills the orders sent at the last close. */
  private fillTime = NaN;
  private lastTime = NaN;
  private trades = 0;
  private wins = 0;
  private tradeCash = NaN;
  /** The last close of the previous chunk: the reference price of a chunk's first bar. */
  private lastClose = NaN;

  /**
   * `signal` is a strategy or a strategy host (the event-driven path) or a family's vectorised
   * columns (see `StrategyFamily.columns`): given the same targets, the runs are the same to the
   * last bit.
   */
  constructor(
    signal: Strategy | StrategyHost | TargetSource | AsyncSignal,
    private readonly settings: EngineSettings,
    options: BacktestOptions = {},
  ) {
    if ("onBar" in signal) this.strategy = signal;
    else if ("decide" in signal) this.host = signal;
    else if ("asyncHost" in signal) this.asyncHost = signal.asyncHost;
    else this.columns = signal;
    const symbol = options.symbol ?? "ASSET";
    const onEvent = options.onEvent && namingSymbol(symbol, options.onEvent);
    this.kernel = createKernel({
      symbol,
      account: { cash: settings.initialCash, units: 0 },
      costs: settings,
      ...(onEvent ? { onEvent } : {}),
      report: new RunReport(this, onEvent),
      ...(options.risk ? { risk: options.risk } : {}),
      ...(options.checks ? { checksBefore: options.checks } : {}),
      ...(this.host ? { host: this.host } : {}),
      ...(this.asyncHost ? { host: this.asyncHost } : {}),
    });
    this.broker = this.kernel.venue;
    this.pipeline = this.kernel.pipeline;
    this.cash = settings.initialCash;
    this.units = this.fees = this.maxDrawdown = this.tradeCash = 0;
    this.peak = this.trough = settings.initialCash;
    this.lastEquity = settings.initialCash;
    this.dayStartEquity = settings.initialCash;
  }

  /** Runs the next chunk of bars, continuing where the previous chunk ended. */
  feed(b: Bars): void {
    if (this.asyncHost) throw new Error("an asynchronous host's bars go through feedAsync");
    if (this.strategy) this.feedStrategy(b, this.strategy, this.lastClose);
    else if (this.host) this.feedBars(b, this.kernel, this.lastClose);
    else this.feedColumns(b, this.columns!, this.lastClose);
    this.fed(b);
  }

  /** `feed` with an asynchronous host: the next chunk, once the host answered all of it. */
  async feedAsync(b: Bars): Promise<void> {
    if (!this.asyncHost) throw new Error("only an asynchronous host's bars go through feedAsync");
    const kernel = this.kernel;
    const previousClose = this.lastClose;
    // feedBars' loop, with the host's answer awaited: the same books and order path.
    for (let t = 0, n = b.length; t < n;) {
      this.openIfSent(b, t);
      const end = kernel.horizon(t, n);
      const decided = await kernel.askAsync(b, t, end, n);
      if (!Number.isInteger(decided) || decided < t || decided > end)
        throw new Error(`strategy host answered bar ${decided} when asked for bars [${t}, ${end})`);
      if (decided === end) {
        this.mark(b, t, end);
        t = end;
        continue;
      }
      t = this.actAt(b, t, decided, kernel, previousClose);
    }
    this.fed(b);
  }

  /** The run ended: the host releases what it holds (a sandbox runs onStop and ends). */
  stop(): void | Promise<void> {
    return this.kernel.stop();
  }

  private fed(b: Bars): void {
    this.bars += b.length;
    if (b.length > 0) {
      this.lastClose = b.close[b.length - 1]!;
      this.lastTime = b.time[b.length - 1]!;
    }
  }

  private openIfSent(b: Bars, t: number): void {
    if (this.sent) {
      this.sent = false;
      this.fillTime = b.time[t]!;
      this.broker.onBar(b.open[t]!, b.high[t]!, b.low[t]!, b.volume[t]!);
    }
  }

  /** Marks bars up to the decided one and acts at its close; answers the next bar. */
  private actAt(
    b: Bars,
    t: number,
    decided: number,
    kernel: ExecutionKernel,
    previousClose: number,
  ): number {
    this.mark(b, t, decided + 1);
    const reference = decided > 0 ? b.close[decided - 1]! : previousClose;
    kernel.act(b.close[decided]!, b.time[decided]!, reference);
    this.sent = this.broker.openOrders.length > 0;
    return decided + 1;
  }

  /**
   * The event-driven path: the kernel asks the strategy host for the chunk's bars, and the host
   * runs ahead to its next decision (the portfolio cannot change before it); the books then mark
   * the bars it went through. `previousClose` is the close before the chunk.
   */
  private feedBars(b: Bars, kernel: ExecutionKernel, previousClose: number): void {
    // Nothing is read before the loop: given a run's bars in one chunk, this is called once a run,
    // and a read there, made before the JIT kept any feedback for this function, would
    // deoptimise the compiled loop on entry in the next run.
    for (let t = 0, n = b.length; t < n;) {
      if (this.sent) {
        this.sent = false;
        this.fillTime = b.time[t]!;
        this.broker.onBar(b.open[t]!, b.high[t]!, b.low[t]!, b.volume[t]!);
      }
      const end = kernel.horizon(t, n);
      const decided = kernel.ask(b, t, end);
      // Orders are rare (one bar in hundreds): the bars up to the decision are marked in `mark`,
      // a loop small enough for the JIT to compile at once, while the order path stays outside it.
      if (decided >= end) {
        this.mark(b, t, end);
        t = end;
        continue;
      }
      this.mark(b, t, decided + 1);
      // The previous chunk's last close comes in as an argument, not read here: a field read the
      // JIT has never seen run (a chunk's first bar rarely decides) is compiled as a
      // deoptimisation, and one it has seen would tie this loop to the field's first value
      // (feed sets it only after the loop).
      const reference = decided > 0 ? b.close[decided - 1]! : previousClose;
      kernel.act(b.close[decided]!, b.time[decided]!, reference);
      this.sent = this.broker.openOrders.length > 0;
      t = decided + 1;
    }
  }

  /**
   * A built-in family's path: the same bar step as `feedBars` with the family's BuiltInHost, its
   * loop and the books' fused into `scan` (one loop for the JIT to warm up in a fresh process,
   * not two); kernel.test.ts holds the two to the same orders.
   */
  private feedStrategy(b: Bars, strategy: Strategy, previousClose: number): void {
    for (let t = 0; t < b.length;) {
      if (this.sent) {
        this.sent = false;
        this.fillTime = b.time[t]!;
        this.broker.onBar(b.open[t]!, b.high[t]!, b.low[t]!, b.volume[t]!);
      }
      const decided = this.scan(b, t, strategy);
      if (decided < 0) break;
      const reference = decided > 0 ? b.close[decided - 1]! : previousClose;
      this.pipeline.decide(this.target, b.close[decided]!, b.time[decided]!, reference);
      this.sent = this.broker.openOrders.length > 0;
      t = decided + 1;
    }
  }

  private scan(b: Bars, from: number, strategy: Strategy): number {
    const { time, close } = b;
    const { pipeline, series } = this;
    // The hot state lives in locals for the loop and goes back to the fields when it ends: the
    // JIT keeps locals in registers, while every field write is a store it must not reorder
    // around the strategy's call.
    const { cash, units } = this;
    let { peak, trough, maxDrawdown, due, nextDay, lastEquity, barsInMarket } = this;
    let found = -1;
    for (let t = from, n = b.length; t < n; t++) {
      const c = close[t]!;
      const equity = cash + units * c;
      if (equity > peak) peak = trough = equity;
      else if (equity < trough) {
        // Only a new low under the same peak can deepen the drawdown.
        trough = equity;
        const dd = (peak - equity) / peak;
        if (dd > maxDrawdown) maxDrawdown = dd;
        series.deepen(time[t]!, equity, dd);
      }
      // One counter per bar: the equity curve keeps a bounded number of points (EquitySeries).
      if (--due === 0) due = series.close(time[t]!, equity, peak);
      // Bar times only increase: a bar at or past the next midnight starts a new day.
      if (time[t]! >= nextDay) nextDay = this.newDay(time[t]!, lastEquity);
      lastEquity = equity;
      if (units !== 0) barsInMarket++;
      const target = strategy.onBar(b, t);
      if (pipeline.wouldMove(target)) {
        this.target = target;
        found = t;
        break;
      }
    }
    this.peak = peak;
    this.trough = trough;
    this.maxDrawdown = maxDrawdown;
    this.due = due;
    this.nextDay = nextDay;
    this.lastEquity = lastEquity;
    this.barsInMarket = barsInMarket;
    return found;
  }

  /**
   * Marks bars [from, to) to market: the books between two fills. `scanColumns` keeps the same
   * books from targets computed beforehand; the two give the same run to the last bit
   * (vectorised.test.ts).
   */
  private mark(b: Bars, from: number, to: number): void {
    const { time, close } = b;
    const { series } = this;
    // The hot state lives in locals for the loop and goes back to the fields when it ends: the
    // JIT keeps locals in registers, while every field write is a store it must not reorder.
    const { cash, units } = this;
    let { peak, trough, maxDrawdown, due, nextDay, lastEquity } = this;
    for (let t = from; t < to; t++) {
      const equity = cash + units * close[t]!;
      if (equity > peak) peak = trough = equity;
      else if (equity < trough) {
        // Only a new low under the same peak can deepen the drawdown.
        trough = equity;
        const dd = (peak - equity) / peak;
        if (dd > maxDrawdown) maxDrawdown = dd;
        series.deepen(time[t]!, equity, dd);
      }
      // One counter per bar: the equity curve keeps a bounded number of points (EquitySeries).
      if (--due === 0) due = series.close(time[t]!, equity, peak);
      // Bar times only increase: a bar at or past the next midnight starts a new day.
      if (time[t]! >= nextDay) nextDay = this.newDay(time[t]!, lastEquity);
      lastEquity = equity;
    }
    this.peak = peak;
    this.trough = trough;
    this.maxDrawdown = maxDrawdown;
    this.due = due;
    this.nextDay = nextDay;
    this.lastEquity = lastEquity;
    if (units !== 0) this.barsInMarket += to - from;
  }

  /** The vectorised path: a block's targets in one pass, then the books up to each order. */
  private feedColumns(b: Bars, columns: TargetSource, closeBefore: number): void {
    const { broker, pipeline, targets } = this;
    for (let from = 0, n = b.length; from < n; from += BLOCK) {
      const to = Math.min(n, from + BLOCK);
      columns.fill(b, from, to, targets);
      for (let t = from; t < to;) {
        if (this.sent) {
          this.sent = false;
          this.fillTime = b.time[t]!;
          broker.onBar(b.open[t]!, b.high[t]!, b.low[t]!, b.volume[t]!);
        }
        const decided = this.scanColumns(b, t, from, to);
        if (decided < 0) break;
        // The close before the chunk comes as an argument, like feedBars': a field read only
        // when a chunk's first bar decides is reached too rarely for the JIT to have seen it, and
        // reached in a later run it threw the compiled loop away.
        const reference = decided > 0 ? b.close[decided - 1]! : closeBefore;
        pipeline.decide(targets[decided - from]!, b.close[decided]!, b.time[decided]!, reference);
        this.sent = broker.openOrders.length > 0;
        t = decided + 1;
      }
    }
  }

  /**
   * `mark` with the stop at a change of target computed beforehand: marks bars to market from `t0` on, until a bar (of
   * the block that starts at `from`) whose target would move the position: returns its index,
   * or -1 at the block's end.
   */
  private scanColumns(b: Bars, t0: number, from: number, to: number): number {
    const { time, close } = b;
    const { series, targets } = this;
    const held = this.pipeline.target;
    // The hot state lives in locals for the loop and goes back to the fields when it ends: the
    // JIT keeps locals in registers, while every field write is a store it must not reorder.
    const { cash, units } = this;
    let { peak, trough, maxDrawdown, due, nextDay, lastEquity } = this;
    let t = t0;
    for (; t < to; t++) {
      const equity = cash + units * close[t]!;
      if (equity > peak) peak = trough = equity;
      else if (equity < trough) {
        // Only a new low under the same peak can deepen the drawdown.
        trough = equity;
        const dd = (peak - equity) / peak;
        if (dd > maxDrawdown) maxDrawdown = dd;
        series.deepen(time[t]!, equity, dd);
      }
      // One counter per bar: the equity curve keeps a bounded number of points (EquitySeries).
      if (--due === 0) due = series.close(time[t]!, equity, peak);
      // Bar times only increase: a bar at or past the next midnight starts a new day.
      if (time[t]! >= nextDay) nextDay = this.newDay(time[t]!, lastEquity);
      lastEquity = equity;
      if (targets[t - from] !== held) break;
      if (units === 0) {
        // Flat, the books stand still: every bar up to the next change of target has this
        // bar's equity (the cash), so no peak or drawdown moves and those bars only count down to
        // the curve's next bucket end and the next midnight. Found from the targets alone, they
        // are visited at those two kinds of bar only; the books come out as bar by bar.
        let stop = t + 1;
        while (stop < to && targets[stop - from] === held) stop++;
        const last = stop < to ? stop : to - 1;
        for (let k = t + 1; k <= last;) {
          const bucketEnd = k + due - 1;
          const midnight = firstAtOrAfter(time, nextDay, k, last + 1);
          const at = bucketEnd < midnight ? bucketEnd : midnight;
          if (at > last) {
            due -= last - k + 1;
            break;
          }
          due -= at - k;
          if (--due === 0) due = series.close(time[at]!, equity, peak);
          if (time[at]! >= nextDay) nextDay = this.newDay(time[at]!, equity);
          k = at + 1;
        }
        t = stop;
        break;
      }
    }
    this.peak = peak;
    this.trough = trough;
    this.maxDrawdown = maxDrawdown;
    this.due = due;
    this.nextDay = nextDay;
    this.lastEquity = lastEquity;
    const end = t < to ? t + 1 : to;
    if (units !== 0) this.barsInMarket += end - t0;
    return t < to ? t : -1;
  }

  /** A bar opened a new day: closes the last day's return; answers the next midnight. */
  private newDay(time: number, lastEquity: number): number {
    if (!Number.isNaN(this.day)) {
      this.daily.push(lastEquity / this.dayStartEquity - 1);
      this.days.push(this.day);
      this.dayStartEquity = lastEquity;
    }
    this.day = Math.floor(time / DAY_MS);
    return (this.day + 1) * DAY_MS;
  }

  /**
   * The portfolio side of a fill: the books, fees, and round trips (one ends when flat). Called
   * by this run's broker only (through RunReport).
   */
  booked(signed: number, price: number, fee: number): void {
    this.book.fill(this.fillTime, signed, price, fee);
    this.cash = this.broker.cash;
    this.units = this.broker.units;
    this.fees += fee;
    this.tradeCash += -signed * price - fee;
    if (this.units === 0) {
      this.trades++;
      if (this.tradeCash > 0) this.wins++;
      this.tradeCash = 0;
    }
  }

  /** Closes the books: the open position is marked at the last close, not sold. */
  finish(): RunMetrics {
    // The engine's compiled code outlives this run only while objects of its shapes do.
    keepRun(this);
    const daily = Float64Array.from(
      Number.isNaN(this.day)
        ? this.daily
        : [...this.daily, this.lastEquity / this.dayStartEquity - 1],
    );
    const { sharpe, sortino } = riskAdjusted(daily);
    const days = Number.isNaN(this.day) ? this.days : [...this.days, this.day];
    // The open bucket of the curve ends at the last bar.
    if (this.due !== this.series.bucketBars && !Number.isNaN(this.lastTime))
      this.series.close(this.lastTime, this.lastEquity, this.peak);
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
      results: {
        curve: this.series.points(),
        dailyDates: days.map((d) => d * DAY_MS),
        trades: this.book.finish(this.lastTime, this.lastClose),
        tradesDropped: this.book.dropped,
      },
    };
  }
}

/**
 * What a run's broker reports to the run. A class rather than an object with an arrow: every
 * run's broker then calls the one `fill` of this prototype, where a new arrow per run is a new
 * call target, and the broker's compiled code would deoptimise at the first fill of each new run
 * in a long-running process.
 */
class RunReport implements BrokerReport {
  constructor(
    private readonly run: BacktestRun,
    readonly event: ((e: ExecutionEvent) => void) | undefined,
  ) {}

  fill(signed: number, price: number, fee: number): void {
    this.run.booked(signed, price, fee);
  }
}

/** The first index in [lo, hi) whose time is at or past `at` (times never decrease), or hi. */
function firstAtOrAfter(time: Float64Array, at: number, lo: number, hi: number): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (time[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One whole backtest over bars already in memory. */
export function runBacktest(
  bars: Bars,
  strategy: Strategy,
  settings: EngineSettings,
  options?: BacktestOptions,
): RunMetrics {
  const run = new BacktestRun(strategy, settings, options);
  run.feed(bars);
  return run.finish();
}
