import type { ExecutionEvent } from "../../execution/events.js";
import type { KernelOrder } from "../../execution/kernel/strategy-host.js";
import {
  firstRefusal,
  noteAccepted,
  type PreTradeCheck,
  type PreTradeContext,
} from "../../execution/pre-trade.js";
import { RefusalCounter } from "../../execution/refusal-counter.js";
import { anyLimit, type RiskLimits } from "../../execution/risk-controls/limits.js";
import type { FleetFigures } from "../../execution/risk-controls/risk-context.js";
import { RiskGuard, type DisabledBy } from "../../execution/risk-controls/risk-guard.js";
import type { Account } from "../../execution/simulated-broker.js";
import { namingSymbol } from "../symbol-events.js";
import { ordersForTarget, type OrderIntent } from "../../execution/sizing.js";
import type { EngineSettings } from "../settings.js";
import type { Strategy } from "../strategies/strategy.js";
import type { AlignedBars } from "./aligned.js";
import { PortfolioBooks } from "./portfolio-books.js";
import { PortfolioCapital } from "./portfolio-capital.js";
import { Sleeve } from "./sleeve.js";

/** What a portfolio adds to a run's engine settings (the BotSpec's engine, see docs/portfolios.md). */
export interface PortfolioSettings extends EngineSettings {
  /** A negative target or a sell past flat opens a short only when set; else it is refused. */
  allowShort?: boolean;
  /** Yearly cost of a short position, in basis points of its value, charged bar by bar. */
  borrowBps?: number;
  /** A symbol's own fee and slippage, in place of the run's. */
  symbolCosts?: Readonly<Record<string, { feeBps?: number; slippageBps?: number }>>;
}

/** The refusal counted when a short is asked of a bot whose engine does not allow one. */
export const SHORT_REFUSED = "short_not_allowed";

/** Where a portfolio host writes the decision of the bar it stopped at (cf. DecisionSink). */
export interface PortfolioSink {
  /** Signed fraction of the portfolio's equity the symbol's position should take. */
  target(symbol: number, weight: number): void;
  /** A position of exactly these units (a market order for the difference). */
  units(symbol: number, units: number): void;
  order(symbol: number, order: KernelOrder): void;
  cancel(orderId: string): void;
}

/**
 * A strategy of the whole universe, asynchronous (a sandboxed strategy): the protocol of
 * AsyncStrategyHost, over every symbol's bars at once. `decide` answers the bar in [from, to)
 * whose decision it wrote, or `to`.
 */
export interface PortfolioHost {
  decide(
    bars: AlignedBars,
    from: number,
    to: number,
    run: PortfolioRun,
    out: PortfolioSink,
  ): Promise<number>;
  stop?(): Promise<void> | void;
}

export interface PortfolioOptions {
  risk?: {
    limits: RiskLimits;
    refused: Map<string, number>;
    /** The credit threshold's zero: a resumed session's start, not its cash now (initialCash). */
    startEquity?: number;
    /** The rest of the fleet (a paper session's fleet book), beside the rest of the portfolio. */
    fleet?: () => FleetFigures;
    /** A throttle breach no one re-enabled yet: the run starts disabled. */
    disabled?: DisabledBy;
  };
  /** Every order record names its symbol; a refusal is recorded as order_rejected. */
  onEvent?: (e: ExecutionEvent) => void;
  /** Checks after the risk controls (a paper session's reduce-only gate). */
  checksAfter?: readonly PreTradeCheck[];
  /** Where a resumed session's symbols start: positions, working orders, next order ids. */
  accounts?: Readonly<Record<string, Omit<Account, "cash" | "idPrefix">>>;
  /** Goes before each symbol's order ids (a paper session's task: ids unique per bot). */
  idPrefix?: string;
}

/**
 * A backtest of a universe traded as one portfolio: one cash balance, one position per symbol
 * (long, or short where the engine allows it, paying its borrow cost), each symbol on its own
 * simulated venue with its own fee and slippage, every order through the same sizing rule and
 * pre-trade checks as a one-symbol run, judged against the portfolio's equity and exposure.
 * Bars come aligned on one clock (alignBars): a symbol is traded and decided only at its own
 * bars, and valued at its last close in between.
 */
export class PortfolioRun implements PortfolioSink {
  readonly sleeves: Sleeve[];
  readonly books: PortfolioBooks;
  private readonly checks: PreTradeCheck[] = [];
  private readonly refused: Map<string, number>;
  private readonly settings: PortfolioSettings;
  private readonly short: boolean;
  /** Yearly borrow rate per millisecond. */
  private readonly borrowPerMs: number;
  private lastClock = NaN;
  /** The last bar opened and marked. */
  private opened = -1;
  /** The bar decisions are acted on at (set by the loops before `act`). */
  private at = 0;
  private bars: AlignedBars | undefined;

  constructor(settings: PortfolioSettings, symbols: readonly string[], o: PortfolioOptions = {}) {
    this.settings = settings;
    this.short = settings.allowShort === true;
    this.borrowPerMs = (settings.borrowBps ?? 0) / 10_000 / (365 * 86_400_000);
    this.refused = o.risk?.refused ?? new Map();
    this.sleeves = symbols.map((s, i) => {
      const own = settings.symbolCosts?.[s];
      const costs = {
        feeBps: own?.feeBps ?? settings.feeBps,
        slippageBps: own?.slippageBps ?? settings.slippageBps,
        ...(settings.maxVolumeParticipation !== undefined
          ? { maxVolumeParticipation: settings.maxVolumeParticipation }
          : {}),
      };
      const account = { units: 0, ...o.accounts?.[s], idPrefix: o.idPrefix ?? "" };
      return new Sleeve(s, i, costs, o.onEvent && namingSymbol(s, o.onEvent), account);
    });
    this.onEvent = o.onEvent;
    this.books = new PortfolioBooks(settings.initialCash, this.sleeves);
    if (o.risk && anyLimit(o.risk.limits)) {
      const limits = o.risk.limits;
      const counted = (c: PreTradeCheck) => new RefusalCounter(c, this.refused);
      // The capital threshold holds the portfolio's gross position value, as the fleet's holds
      // the fleet's; the guard's own controls see the rest of the portfolio as its fleet.
      if (limits.capitalLimit > 0)
        this.checks.push(counted(new PortfolioCapital(limits.capitalLimit, this.sleeves)));
      const fleet = o.risk.fleet;
      const guard = new RiskGuard({
        limits: { ...limits, capitalLimit: 0 },
        startEquity: o.risk.startEquity ?? settings.initialCash,
        fleet: () => {
          const rest = this.books.grossExposure() - this.currentExposure();
          const others = fleet?.();
          return { exposure: rest + (others?.exposure ?? 0), loss: others?.loss ?? 0 };
        },
        ...(o.onEvent ? { emit: o.onEvent } : {}),
        ...(o.risk.disabled ? { disabled: o.risk.disabled } : {}),
      });
      this.guard = guard;
      this.checks.push(counted(guard));
    }
    if (o.checksAfter) this.checks.push(...o.checksAfter);
  }

  /** The risk controls' guard, when any limit is set (a person re-enables it after a breach). */
  readonly guard: RiskGuard | undefined;
  private readonly onEvent: ((e: ExecutionEvent) => void) | undefined;

  private current: Sleeve | undefined;
  private currentExposure(): number {
    const s = this.current;
    return s ? Math.abs(s.units) * s.lastClose : 0;
  }

  get cash(): number {
    return this.books.cash();
  }

  /**
   * Bars [from, to) with one built-in strategy per symbol: each gets 1/N of the weight it asks.
   * With `act` false the strategies see the bars and nothing is ordered (a frozen session).
   */
  runStrategies(
    bars: AlignedBars,
    strategies: readonly Strategy[],
    from = 0,
    to = bars.time.length,
    act = true,
  ): void {
    const n = this.sleeves.length;
    this.bars = bars;
    for (let t = from; t < to; t++) {
      this.open(bars, t);
      this.at = t;
      for (let i = 0; i < n; i++) {
        const b = bars.bars[i]!;
        const close = b.close[t]!;
        if (close !== close) continue; // no bar of this symbol now
        const weight = strategies[i]!.onBar(b, t);
        // NaN: no target set yet, the sleeve is left as it is.
        if (weight !== weight || !act) continue;
        const target = weight / n;
        const s = this.sleeves[i]!;
        if (target !== s.asked && s.broker.openOrders.length === 0) this.target(i, target);
      }
    }
  }

  /**
   * A resumed session's strategies relearn from the bars it already saw (`[0, until)`), ordering
   * nothing: the positions (given as `accounts`) already follow the targets they arrive at, and
   * each symbol is valued at its last close from the start.
   */
  relearn(bars: AlignedBars, strategies: readonly Strategy[], until: number): void {
    const n = this.sleeves.length;
    this.bars = bars;
    for (let t = 0; t < until; t++) {
      for (let i = 0; i < n; i++) {
        const b = bars.bars[i]!;
        const close = b.close[t]!;
        if (close !== close) continue;
        const s = this.sleeves[i]!;
        s.lastClose = close;
        s.lastTime = bars.time[t]!;
        const weight = strategies[i]!.onBar(b, t);
        if (weight !== weight) continue;
        s.asked = weight / n;
        s.held = weight < 0 && !this.short ? 0 : weight / n;
      }
    }
    if (until > 0) {
      this.opened = until - 1;
      this.lastClock = bars.time[until - 1]!;
    }
  }

  /** Bars [from, to) with an asynchronous host deciding for the whole universe. */
  async runHost(
    bars: AlignedBars,
    host: PortfolioHost,
    from = 0,
    to = bars.time.length,
  ): Promise<void> {
    this.bars = bars;
    for (const s of this.sleeves) s.listening = true;
    for (let t = from; t < to;) {
      this.advanceTo(bars, t);
      // While an order works, any bar's open may fill it: the host is asked one bar at a time.
      const end = this.working() ? t + 1 : to;
      const d = await host.decide(bars, t, end, this, this);
      if (!Number.isInteger(d) || d < t || d > end)
        throw new Error(`strategy host answered bar ${d} when asked for bars [${t}, ${end})`);
      // Between t and d nothing was decided, so no order worked: those bars only mark.
      this.advanceTo(bars, Math.min(d, end - 1));
      t = d === end ? end : d + 1;
    }
  }

  /**
   * Before a host writes the decision of bar `t`: the books are marked up to its close, where
   * the decision acts (sized at that close, against the equity then).
   */
  decidingAt(t: number): void {
    this.advanceTo(this.bars!, t);
    this.at = t;
  }

  private advanceTo(bars: AlignedBars, t: number): void {
    for (let u = this.opened + 1; u <= t; u++) this.open(bars, u);
  }

  private working(): boolean {
    for (const s of this.sleeves) if (s.broker.openOrders.length > 0) return true;
    return false;
  }

  /** Bar t's open fills what the last closes sent; then the books mark its closes. */
  private open(bars: AlignedBars, t: number): void {
    this.opened = t;
    const time = bars.time[t]!;
    const sleeves = this.sleeves;
    if (this.borrowPerMs > 0 && this.lastClock === this.lastClock)
      this.chargeBorrow(time - this.lastClock);
    this.lastClock = time;
    for (let i = 0; i < sleeves.length; i++) {
      const s = sleeves[i]!;
      const b = bars.bars[i]!;
      const open = b.open[t]!;
      if (open !== open) continue;
      if (s.broker.openOrders.length > 0) {
        s.fillTime = time;
        s.broker.onBar(open, b.high[t]!, b.low[t]!, b.volume[t]!);
      }
      s.lastClose = b.close[t]!;
      s.lastTime = time;
    }
    this.books.mark(time);
  }

  private chargeBorrow(ms: number): void {
    for (const s of this.sleeves)
      if (s.units < 0) s.borrow += -s.units * s.lastClose * this.borrowPerMs * ms;
  }

  // PortfolioSink: every decision acts at once, at the close of bar `at`.

  target(i: number, weight: number): void {
    const s = this.sleeves[i]!;
    // An order still working decides first: a built-in strategy asks again at the next bar.
    if (weight === s.asked || s.broker.openOrders.length > 0) return;
    s.asked = weight;
    if (weight < 0 && !this.short) {
      this.count(SHORT_REFUSED);
      weight = 0;
    }
    if (weight === s.held) return;
    const close = this.closeOf(s);
    if (!(close > 0)) return; // no bar of the symbol yet: nothing to size against
    s.held = weight;
    const equity = this.books.equity();
    const orders = ordersForTarget(weight, s.units, equity, close, this.settings);
    let accepted = 0;
    for (const order of orders) {
      if (!this.pass(s, order, close, equity, accepted)) continue;
      s.broker.submit(order.side, order.units);
      accepted += order.side === "buy" ? order.units : -order.units;
    }
  }

  units(i: number, units: number): void {
    const s = this.sleeves[i]!;
    const delta = units - s.units;
    if (delta !== 0)
      this.order(i, { side: delta > 0 ? "buy" : "sell", units: Math.abs(delta), kind: "market" });
  }

  order(i: number, order: KernelOrder): string | undefined {
    const s = this.sleeves[i]!;
    const after = s.units + (order.side === "buy" ? order.units : -order.units);
    if (!(order.units > 0) || !Number.isFinite(order.units)) return undefined;
    if (after < -1e-12 && !this.short) {
      this.count(SHORT_REFUSED);
      return undefined;
    }
    const close = this.closeOf(s);
    if (!(close > 0)) return undefined;
    const intent: OrderIntent = {
      side: order.side,
      units: order.units,
      closes: s.units !== 0 && (order.side === "buy" ? -s.units : s.units) === order.units,
    };
    if (!this.pass(s, intent, close, this.books.equity(), 0)) return undefined;
    const price = order.kind === "stop" ? order.stopPrice : order.limitPrice;
    return s.broker.submit(order.side, order.units, order.kind, price).id;
  }

  cancel(orderId: string): void {
    for (const s of this.sleeves) s.broker.cancel(orderId, "strategy: cancel");
  }

  /** The close a decision is sized at: the symbol's last (its own bar's when it has one now). */
  private closeOf(s: Sleeve): number {
    return s.lastClose;
  }

  private pass(
    s: Sleeve,
    order: OrderIntent,
    close: number,
    equity: number,
    accepted: number,
  ): boolean {
    if (this.checks.length === 0) return true;
    const b = this.bars!.bars[s.index]!;
    const context: PreTradeContext = {
      symbol: s.symbol,
      price: close,
      equity,
      cash: this.books.cash(),
      position: s.units,
      accepted,
      time: this.bars!.time[this.at]!,
      reference: this.at > 0 ? b.close[this.at - 1]! : NaN,
    };
    this.current = s;
    const refusal = firstRefusal(this.checks, order, context);
    this.current = undefined;
    if (refusal) {
      if (this.onEvent)
        namingSymbol<ExecutionEvent>(
          s.symbol,
          this.onEvent,
        )({ type: "order_rejected", data: { side: order.side, units: order.units, ...refusal } });
      return false;
    }
    noteAccepted(this.checks, order, context);
    return true;
  }

  private count(key: string): void {
    this.refused.set(key, (this.refused.get(key) ?? 0) + 1);
  }

  /** The refusals by control (with SHORT_REFUSED), none when nothing was refused. */
  refusals(): Record<string, number> | undefined {
    return this.refused.size > 0 ? Object.fromEntries(this.refused) : undefined;
  }
}
