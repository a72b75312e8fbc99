import type { Bars } from "../../engine/bars.js";
import type { Costs } from "../costs.js";
import type { ExecutionEvent, Order } from "../events.js";
import { OrderPipeline } from "../order-pipeline.js";
import type { PreTradeCheck } from "../pre-trade.js";
import { RefusalCounter } from "../refusal-counter.js";
import { anyLimit, type RiskLimits } from "../risk-controls/limits.js";
import { RiskGuard, type DisabledBy } from "../risk-controls/risk-guard.js";
import type { FleetFigures } from "../risk-controls/risk-context.js";
import { SimulatedBroker, type Account } from "../simulated-broker.js";
import type { Sizing } from "../sizing.js";
import type {
  AsyncStrategyHost,
  DecisionSink,
  KernelFill,
  KernelOrder,
  PortfolioView,
  StrategyHost,
} from "./strategy-host.js";
import type { VenueReport } from "./venue.js";

/** The bot's risk limits, when the risk controls are to judge its orders. */
export interface KernelRisk {
  limits: RiskLimits;
  /** The capital the run started with (its credit threshold's zero). */
  startEquity: number;
  /** The rest of the fleet's figures, asked per order (a backtest has no fleet). */
  fleet?: () => FleetFigures;
  /** A throttle breach no one re-enabled yet: the run starts disabled. */
  disabled?: DisabledBy;
  /**
   * Counts refusals by control instead of recording them (a backtest keeps only the counts:
   * see RefusalCounter).
   */
  refused?: Map<string, number>;
}

export interface KernelOptions {
  symbol: string;
  /** Where the venue starts: a new run's cash, or a resumed session's account and orders. */
  account: Account;
  costs: Costs & Sizing;
  /** Every record of the order path, in order; without it none is built. */
  onEvent?: (e: ExecutionEvent) => void;
  /** The venue's report when the caller books fills itself (a backtest); default `{ event: onEvent }`. */
  report?: VenueReport;
  /** The risk controls run when any limit is set, or the bot starts disabled. */
  risk?: KernelRisk;
  /** Checks before the risk controls (a stress run's counter) and after them (reduce-only, a witness). */
  checksBefore?: readonly PreTradeCheck[];
  checksAfter?: readonly PreTradeCheck[];
  host?: StrategyHost | AsyncStrategyHost;
}

/** Why the kernel cancels an order a strategy asked it to cancel. */
export const STRATEGY_CANCEL = "strategy: cancel";

/** The decision of one bar, as a host writes it; cleared once acted on. */
class Decision implements DecisionSink {
  weight = NaN;
  hasTarget = false;
  orders: KernelOrder[] = [];
  cancels: string[] = [];

  target(weight: number): void {
    this.weight = weight;
    this.hasTarget = true;
  }

  order(order: KernelOrder): void {
    this.orders.push(order);
  }

  cancel(orderId: string): void {
    this.cancels.push(orderId);
  }

  clear(): void {
    this.hasTarget = false;
    if (this.orders.length > 0) this.orders = [];
    if (this.cancels.length > 0) this.cancels = [];
  }
}

/** The portfolio as a host reads it: the venue's books and the target the pipeline follows. */
class KernelView implements PortfolioView {
  constructor(
    private readonly venue: SimulatedBroker,
    private readonly pipeline: OrderPipeline,
  ) {}
  get cash(): number {
    return this.venue.cash;
  }
  get units(): number {
    return this.venue.units;
  }
  get target(): number {
    return this.pipeline.target;
  }
  get openOrders(): number {
    return this.venue.openOrders.length;
  }
  get working(): readonly Order[] {
    return this.venue.openOrders;
  }
}

/**
 * The one execution kernel of backtests, paper sessions, conformance and stress runs: the venue
 * (the simulated broker), the risk controls, the order pipeline and the strategy host, built
 * together by `createKernel`, and the bar step that drives them:
 *
 *   open(t)   the venue fills what the last close sent, at bar t's open (held to its volume);
 *   ask       the host decides over bars from t on (see StrategyHost for the protocol);
 *   act       at the close of the bar it decided at: cancels, the target's orders, explicit
 *             orders, each through the pre-trade checks to the venue.
 *
 * `step` is one bar of that (a paper session's pace, a stress replay's rewritten clock); `run`
 * lets a host run ahead to its next decision. A backtest's books ride on the same primitives
 * (engine/event-engine.ts), so a backtest, a paper session and a stress run over the same bars
 * send the same orders.
 */
export class ExecutionKernel {
  readonly venue: SimulatedBroker;
  readonly guard: RiskGuard | undefined;
  readonly pipeline: OrderPipeline;
  readonly view: PortfolioView;
  private readonly decision = new Decision();
  /** Fills booked since the host was last told (only kept for a host that listens). */
  private fillsDue: KernelFill[] = [];

  constructor(
    o: KernelOptions,
    readonly host: StrategyHost | AsyncStrategyHost | undefined = o.host,
  ) {
    const base: VenueReport = o.report ?? (o.onEvent ? { event: o.onEvent } : {});
    const report: VenueReport =
      host?.fills === undefined
        ? base
        : {
            ...(base.event ? { event: base.event } : {}),
            fill: (signed, price, fee, order) => {
              base.fill?.(signed, price, fee, order);
              this.fillsDue.push({
                orderId: order.id,
                side: order.side,
                units: Math.abs(signed),
                price,
                fee,
              });
            },
          };
    this.venue = new SimulatedBroker(o.symbol, o.account, o.costs, report);
    const risk = o.risk;
    if (risk && (anyLimit(risk.limits) || risk.disabled)) {
      this.guard = new RiskGuard({
        limits: risk.limits,
        startEquity: risk.startEquity,
        ...(o.onEvent ? { emit: o.onEvent } : {}),
        ...(risk.fleet ? { fleet: risk.fleet } : {}),
        ...(risk.disabled ? { disabled: risk.disabled } : {}),
      });
    }
    const guard: PreTradeCheck[] = !this.guard
      ? []
      : [risk?.refused ? new RefusalCounter(this.guard, risk.refused) : this.guard];
    const checks = [...(o.checksBefore ?? []), ...guard, ...(o.checksAfter ?? [])];
    this.pipeline = new OrderPipeline(this.venue, o.costs, checks, o.onEvent);
    this.view = new KernelView(this.venue, this.pipeline);
  }

  /** Bar `t`'s open: the venue fills what the last close sent (`volume` bounds the fills). */
  open(bars: Bars, t: number, volume: number = bars.volume[t]!): void {
    this.venue.onBar(bars.open[t]!, bars.high[t]!, bars.low[t]!, volume);
  }

  /**
   * Asks the synchronous host for bars [from, to): the bar it decided at (its decision waiting
   * for `act`), or `to`. The caller asks for one bar only while an order works (see `horizon`).
   */
  ask(bars: Bars, from: number, to: number): number {
    const host = this.host as StrategyHost;
    if (this.fillsDue.length > 0) this.tellFills(host);
    return host.decide(bars, from, to, this.view, this.decision);
  }

  /**
   * `ask` of an asynchronous host (a sandbox answering over a pipe); `ahead`: the end of the bars
   * this run will ask for (see AsyncStrategyHost).
   */
  async askAsync(bars: Bars, from: number, to: number, ahead?: number): Promise<number> {
    const host = this.host as AsyncStrategyHost;
    if (this.fillsDue.length > 0 && host.fills) {
      const fills = this.fillsDue;
      this.fillsDue = [];
      await host.fills(fills);
    }
    return ahead === undefined
      ? host.decide(bars, from, to, this.view, this.decision)
      : host.decide(bars, from, to, this.view, this.decision, ahead);
  }

  /**
   * How far a host may run ahead from bar `t` (of bars up to `to`): to `to`, or one bar while an
   * order works at the venue, since any bar's open may fill it and change the portfolio.
   */
  horizon(t: number, to: number): number {
    return this.venue.openOrders.length > 0 ? Math.min(to, t + 1) : to;
  }

  /**
   * At the close of the bar decided at: the host's cancels, then the orders that move the
   * position to its target, then its explicit orders. `time` is the clock of the time-window
   * controls and `reference` the previous bar's close (the price collar's).
   */
  act(close: number, time: number, reference: number): void {
    const d = this.decision;
    if (d.cancels.length > 0) for (const id of d.cancels) this.venue.cancel(id, STRATEGY_CANCEL);
    if (d.hasTarget) this.pipeline.decide(d.weight, close, time, reference);
    if (d.orders.length > 0)
      for (const order of d.orders) {
        const placed = this.pipeline.send(order, close, time, reference);
        if (order.ref !== undefined)
          (this.host as AsyncStrategyHost | undefined)?.placed?.(order.ref, placed?.id);
      }
    d.clear();
  }

  /** Forgets the decision written (a frozen session decides nothing). */
  drop(): void {
    this.decision.clear();
  }

  /**
   * One bar: its open, the host's decision at its close and the orders that follow. `time` and
   * `volume` default to the bar's own (a stress replay rewrites both). True when the host decided.
   */
  step(
    bars: Bars,
    t: number,
    reference: number,
    time: number = bars.time[t]!,
    volume: number = bars.volume[t]!,
  ): boolean {
    this.open(bars, t, volume);
    if (decided(this.ask(bars, t, t + 1), t, t + 1) > t) return false;
    this.act(bars.close[t]!, time, reference);
    return true;
  }

  /**
   * Bars [from, to) with a synchronous host, which runs ahead to each decision; `reference` is
   * the close before `from`.
   */
  run(bars: Bars, from: number, to: number, reference = NaN): void {
    for (let t = from; t < to;) {
      this.open(bars, t);
      const end = this.horizon(t, to);
      const d = decided(this.ask(bars, t, end), t, end);
      if (d === end) {
        t = end;
        continue;
      }
      this.act(bars.close[d]!, bars.time[d]!, d > from ? bars.close[d - 1]! : reference);
      t = d + 1;
    }
  }

  /** `run` with an asynchronous host. */
  async runAsync(bars: Bars, from: number, to: number, reference = NaN): Promise<void> {
    for (let t = from; t < to;) {
      this.open(bars, t);
      const end = this.horizon(t, to);
      const d = decided(await this.askAsync(bars, t, end, to), t, end);
      if (d === end) {
        t = end;
        continue;
      }
      this.act(bars.close[d]!, bars.time[d]!, d > from ? bars.close[d - 1]! : reference);
      t = d + 1;
    }
  }

  /**
   * A resumed session's host relearns from the bars it already saw (`[0, until)`), deciding
   * nothing: the position already follows the target it arrives at.
   */
  relearn(bars: Bars, until: number): void {
    for (let t = 0; t < until;) {
      const d = this.ask(bars, t, until);
      if (d >= until) break;
      if (this.decision.hasTarget) this.pipeline.resumeAt(this.decision.weight);
      this.decision.clear();
      t = d + 1;
    }
  }

  /** The run ended: the host releases what it holds. */
  stop(): void | Promise<void> {
    return this.host?.stop?.();
  }

  private tellFills(host: StrategyHost): void {
    const fills = this.fillsDue;
    this.fillsDue = [];
    host.fills?.(fills);
  }
}

/** A host's answer, checked: a bar of [from, to], or the run stops here with an error naming it. */
function decided(d: number, from: number, to: number): number {
  if (Number.isInteger(d) && d >= from && d <= to) return d;
  throw new Error(`strategy host answered bar ${d} when asked for bars [${from}, ${to})`);
}

/** The factory of every run's order path: venue, risk controls, pipeline and strategy host. */
export function createKernel(o: KernelOptions): ExecutionKernel {
  return new ExecutionKernel(o);
}
