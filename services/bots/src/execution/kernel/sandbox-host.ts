import type { Bars } from "../../engine/bars.js";
import {
  StrategyFailure,
  type Decision,
  type FillView,
  type LogLine,
  type PortfolioView as SandboxPortfolio,
  type Sandbox,
  type SandboxSnapshot,
} from "../../sandbox/index.js";
import type {
  AsyncStrategyHost,
  BarBlock,
  DecisionSink,
  KernelFill,
  PortfolioView,
} from "./strategy-host.js";
import type { ModelOutputRecord } from "../../models/run-models.js";

/** What a sandboxed strategy's run needs to resume: JSON, kept with a paper session's events. */
export interface SandboxHostSnapshot {
  /** The sandbox's snapshot without its bars: they are the run's own, rebuilt by `withBars`. */
  sandbox: SandboxSnapshot;
  units: number;
  averagePrice: number;
  /** Bars the strategy keeps per symbol. */
  lookback: number;
  /**
   * The strategy's ids of its orders still working, with the venue's ([strategy id, venue id]):
   * a resumed strategy cancels them and sees their fills by the ids it gave them.
   */
  orderRefs?: [string, string][];
}

/**
 * The sandbox snapshot of `snapshot` with the bars the strategy held after bar `last` of `bars`
 * put back: its last `lookback` bars with a close (the runtime skips a bar without one), each as
 * the runtime's row [time, open, high, low, close, volume]. Rebuilt rather than stored, so a
 * session keeps kilobytes a bar instead of its whole lookback.
 */
export function withBars(
  snapshot: SandboxHostSnapshot,
  symbol: string,
  bars: Bars,
  last: number,
): SandboxSnapshot {
  const rows: number[][] = [];
  for (let t = last; t >= 0 && rows.length < snapshot.lookback; t--) {
    if (Number.isNaN(bars.close[t]!)) continue;
    rows.push([
      bars.time[t]!,
      bars.open[t]!,
      bars.high[t]!,
      bars.low[t]!,
      bars.close[t]!,
      bars.volume[t]!,
    ]);
  }
  return { ...snapshot.sandbox, bars: { [symbol]: rows.reverse() } };
}

/** Log lines a run keeps from its strategy (the sandbox bounds them per run as well). */
const LOGS_KEPT = 1_000;

/**
 * A sandboxed strategy as the kernel's host: the kernel's view and fills become the sandbox's
 * portfolio and fills, and the sandbox's decisions become the kernel's. The kernel trades one
 * symbol, so the strategy's universe is that symbol. Explicit orders (market, limit, stop) and
 * cancels go through the kernel's order path and its risk controls; the strategy knows its
 * orders by the ids `ctx.order` gave it (in its open orders, its fills and `ctx.cancel`), mapped
 * to the venue's as the kernel places them; a target's own orders show as `target:<venue id>`.
 */
export class SandboxHost implements AsyncStrategyHost {
  /** The strategy's log lines, in order, up to LOGS_KEPT. */
  readonly logs: LogLine[] = [];
  logsDropped = 0;
  private logsDrained = 0;
  /** Bars the strategy keeps per symbol (from its init's answer). */
  private lookback = 1;
  private fillsDue: KernelFill[] = [];
  /** The average price of the position, kept from the fills (the kernel's books have none). */
  private averagePrice = 0;
  private units = 0;
  private blockOf: Bars | undefined;
  private block: readonly Bars[] = [];
  /** Decisions the sandbox answered ahead of the kernel, from `at` on, in bar order. */
  private queue: Decision[] = [];
  private at = 0;
  /** The next bar the strategy runs (or, `waiting`, the bar whose call waits for the portfolio). */
  private next = 0;
  private waiting = false;
  /** The strategy's order ids and the venue's, both ways (deterministic: the kernel's ids are). */
  private readonly venueIds = new Map<string, string>();
  private readonly strategyIds = new Map<string, string>();

  constructor(
    private readonly sandbox: Sandbox,
    private readonly symbol: string,
    /** The run's models, when its version has some: their recorded answers drain from here. */
    private readonly models?: { drain(): ModelOutputRecord[] },
  ) {}

  drainModelOutputs(): ModelOutputRecord[] {
    return this.models?.drain() ?? [];
  }

  fills(fills: readonly KernelFill[]): void {
    for (const f of fills) {
      const signed = f.side === "buy" ? f.units : -f.units;
      const next = this.units + signed;
      if (next === 0) this.averagePrice = 0;
      else if (this.units === 0 || Math.sign(next) !== Math.sign(this.units))
        this.averagePrice = f.price;
      else if (Math.sign(signed) === Math.sign(this.units))
        this.averagePrice =
          (this.averagePrice * Math.abs(this.units) + f.price * f.units) / Math.abs(next);
      this.units = next;
      this.fillsDue.push(f);
    }
  }

  /**
   * The kernel's protocol (StrategyHost) over the sandbox's: the sandbox runs on to `ahead` (the
   * end of what the kernel will ask of this block), past decisions, and its decisions wait here
   * for the kernel to reach them; a call costs a round trip only when the strategy has run out
   * of answered bars, or waits at a bar where it read the portfolio (then it gets the
   * portfolio the kernel shows at that bar). Between `from` and the strategy's next bar nothing
   * was decided, so no fill happened there (with orders working, `to` is `from + 1` and the
   * queue answers), and the portfolio the kernel shows at `from` is the one at that bar.
   */
  async decide(
    block: BarBlock,
    from: number,
    to: number,
    view: PortfolioView,
    out: DecisionSink,
    ahead: number = to,
  ): Promise<number> {
    if (this.blockOf !== block) {
      if (this.at < this.queue.length || this.waiting)
        throw new Error(
          "the kernel moved to a new block before it reached the strategy's decisions",
        );
      this.blockOf = block;
      this.block = [block];
      this.next = from;
    }
    for (;;) {
      const d = this.queue[this.at];
      if (d !== undefined) {
        if (d.bar >= to) return to;
        this.at++;
        this.write(d, out, view);
        return d.bar;
      }
      if (this.next >= to) return to;
      await this.ask(from, to, Math.max(ahead, to), view);
    }
  }

  /** A round trip: the strategy runs on from its next bar (or its waiting call resumes). */
  private async ask(from: number, to: number, end: number, view: PortfolioView): Promise<void> {
    const portfolio = this.portfolio(view);
    let answer;
    if (this.waiting) answer = await this.kept(this.sandbox.resume(portfolio, to));
    else {
      // Fills came at this bar's open.
      const time = this.block[0]!.time[from]!;
      const fills: FillView[] = this.fillsDue.map((f) => ({
        orderId: this.strategyId(f.orderId),
        symbol: this.symbol,
        side: f.side,
        units: f.units,
        price: f.price,
        fee: f.fee,
        time,
      }));
      this.fillsDue = [];
      answer = await this.kept(
        this.sandbox.decide(this.block, this.next, end, portfolio, fills, to),
      );
    }
    this.keep(answer.logs, answer.logsDropped);
    this.queue = answer.decisions;
    this.at = 0;
    this.waiting = answer.waitingAt !== undefined;
    this.next = this.waiting ? answer.waitingAt! : answer.stoppedAfter + 1;
  }

  async stop(): Promise<void> {
    // A strategy waiting at a bar the kernel never reached (the run ended first) gets no onStop.
    if (this.waiting) return this.sandbox.kill();
    const answer = await this.kept(this.sandbox.stop());
    this.keep(answer.logs, answer.logsDropped);
  }

  /** A call's answer; when it fails, the lines it wrote before failing are kept first. */
  private async kept<T>(call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (error) {
      if (error instanceof StrategyFailure && error.callLogs) {
        this.keep(error.callLogs.lines, error.callLogs.dropped);
        error.callLogs = undefined;
      }
      throw error;
    }
  }

  private portfolio(view: PortfolioView): SandboxPortfolio {
    return {
      cash: view.cash,
      positions:
        view.units === 0
          ? []
          : [{ symbol: this.symbol, units: view.units, averagePrice: this.averagePrice }],
      openOrders: view.working.map((o) => ({
        id: this.strategyId(o.id),
        symbol: this.symbol,
        side: o.side,
        type: o.kind,
        units: o.units,
        ...(o.limitPrice !== undefined ? { limitPrice: o.limitPrice } : {}),
        ...(o.stopPrice !== undefined ? { stopPrice: o.stopPrice } : {}),
      })),
    };
  }

  /**
   * One decision, as the kernel takes it: cancels (by the venue's id of the strategy's order), a
   * weight target, a units target as the market order that brings the position there, then the
   * explicit orders, each named by the strategy's id (`ref`) so `placed` can map it.
   */
  private write(d: Decision, out: DecisionSink, view: PortfolioView): void {
    for (const id of d.cancels) {
      const venueId = this.venueIds.get(id);
      // An order refused, filled or cancelled already, or never made: nothing to cancel.
      if (venueId !== undefined && view.working.some((o) => o.id === venueId)) out.cancel(venueId);
    }
    for (const { target } of d.targets) {
      if ("weight" in target) {
        out.target(target.weight);
        continue;
      }
      const delta = target.units - view.units;
      if (delta !== 0)
        out.order({ side: delta > 0 ? "buy" : "sell", units: Math.abs(delta), kind: "market" });
    }
    for (const order of d.orders)
      out.order({
        side: order.side,
        units: order.units,
        kind: order.type,
        ...(order.type === "limit" ? { limitPrice: order.limitPrice } : {}),
        ...(order.type === "stop" ? { stopPrice: order.stopPrice } : {}),
        ref: order.id,
      });
  }

  placed(ref: string, orderId: string | undefined): void {
    if (orderId === undefined) return;
    this.venueIds.set(ref, orderId);
    this.strategyIds.set(orderId, ref);
  }

  /** The id a strategy knows an order by: its own, or `target:` and the venue's for a target's. */
  private strategyId(venueId: string): string {
    return this.strategyIds.get(venueId) ?? `target:${venueId}`;
  }

  /** The sandbox's snapshot (ctx.state, its bars, its standing targets) and the host's books. */
  async snapshot(working: readonly string[] = []): Promise<SandboxHostSnapshot> {
    const { bars: _rebuilt, ...sandbox } = await this.sandbox.snapshot();
    const orderRefs: [string, string][] = [];
    for (const venueId of working) {
      const ref = this.strategyIds.get(venueId);
      if (ref !== undefined) orderRefs.push([ref, venueId]);
    }
    return {
      sandbox,
      units: this.units,
      averagePrice: this.averagePrice,
      lookback: this.lookback,
      ...(orderRefs.length > 0 ? { orderRefs } : {}),
    };
  }

  /**
   * The books of a resumed run (its sandbox started from `snapshot.sandbox`), so the position's
   * average price the strategy reads is the one it read before, and its working orders keep the
   * ids it knows them by.
   */
  restoreBooks(snapshot: SandboxHostSnapshot): void {
    this.units = snapshot.units;
    this.averagePrice = snapshot.averagePrice;
    for (const [ref, venueId] of snapshot.orderRefs ?? []) this.placed(ref, venueId);
  }

  /** Keeps the log lines `init` wrote (the sandbox's init answers before the host is built). */
  initialised(answer: { logs: readonly LogLine[]; logsDropped: number; lookback: number }): void {
    this.lookback = answer.lookback;
    this.keep(answer.logs, answer.logsDropped);
  }

  abort(): void {
    this.sandbox.kill();
  }

  drainLogs(): { lines: readonly LogLine[]; dropped: number } {
    const lines = this.logs.slice(this.logsDrained);
    this.logsDrained = this.logs.length;
    return { lines, dropped: this.logsDropped };
  }

  private keep(lines: readonly LogLine[], dropped: number): void {
    for (const line of lines)
      if (this.logs.length < LOGS_KEPT) this.logs.push(line);
      else this.logsDropped++;
    this.logsDropped = Math.max(this.logsDropped, dropped);
  }
}
