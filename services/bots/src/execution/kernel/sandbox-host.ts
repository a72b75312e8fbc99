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

/** What a sandboxed strategy's run needs to resume: JSON, kept with a paper session's events. */
export interface SandboxHostSnapshot {
  /** The sandbox's snapshot without its bars: they are the run's own, rebuilt by `withBars`. */
  sandbox: SandboxSnapshot;
  units: number;
  averagePrice: number;
  /** Bars the strategy keeps per symbol. */
  lookback: number;
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
 * portfolio and fills, and the one decision the sandbox stops at becomes the kernel's. The
 * kernel trades one symbol, so the strategy's universe is that symbol.
 *
 * What the kernel cannot do yet fails the run with strategy_error naming it, never ignored: a
 * target in units, a stop order, and explicit orders and cancels (their ids would have to be the
 * venue's for onFill and cancel to mean what the strategy meant).
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

  constructor(
    private readonly sandbox: Sandbox,
    private readonly symbol: string,
  ) {}

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

  async decide(
    block: BarBlock,
    from: number,
    to: number,
    view: PortfolioView,
    out: DecisionSink,
  ): Promise<number> {
    if (this.blockOf !== block) {
      this.blockOf = block;
      this.block = [block];
    }
    // Fills came at this bar's open.
    const time = block.time[from]!;
    const fills: FillView[] = this.fillsDue.map((f) => ({
      orderId: f.orderId,
      symbol: this.symbol,
      side: f.side,
      units: f.units,
      price: f.price,
      fee: f.fee,
      time,
    }));
    this.fillsDue = [];
    const answer = await this.sandbox.decide(this.block, from, to, this.portfolio(view), fills);
    this.keep(answer.logs, answer.logsDropped);
    const decision = answer.decisions[0];
    if (!decision) return to;
    this.write(decision, out);
    return answer.stoppedAfter;
  }

  async stop(): Promise<void> {
    const answer = await this.sandbox.stop();
    this.keep(answer.logs, answer.logsDropped);
  }

  private portfolio(view: PortfolioView): SandboxPortfolio {
    return {
      cash: view.cash,
      positions:
        view.units === 0
          ? []
          : [{ symbol: this.symbol, units: view.units, averagePrice: this.averagePrice }],
      openOrders: view.working.map((o) => ({
        id: o.id,
        symbol: this.symbol,
        side: o.side,
        type: o.kind,
        units: o.units,
        ...(o.limitPrice !== undefined ? { limitPrice: o.limitPrice } : {}),
      })),
    };
  }

  private write(d: Decision, out: DecisionSink): void {
    const at = `at bar time ${new Date(d.time).toISOString()}`;
    for (const { target } of d.targets) {
      if ("units" in target)
        throw new StrategyFailure(
          "strategy_error",
          `ctx.target(${this.symbol}, { units: ${target.units} }) ${at}: targets in units are not supported yet; give { weight } (a signed fraction of equity)`,
        );
      out.target(target.weight);
    }
    for (const order of d.orders)
      throw new StrategyFailure(
        "strategy_error",
        order.type === "stop"
          ? `ctx.order(stop) ${at}: stop orders are not supported by the simulated venue`
          : `ctx.order(${order.type}) ${at}: explicit orders are not supported in backtests yet; use ctx.target`,
      );
    if (d.cancels.length > 0)
      throw new StrategyFailure(
        "strategy_error",
        `ctx.cancel ${at}: explicit orders are not supported in backtests yet, so there is nothing to cancel`,
      );
  }

  /** The sandbox's snapshot (ctx.state, its bars, its standing targets) and the host's books. */
  async snapshot(): Promise<SandboxHostSnapshot> {
    const { bars: _rebuilt, ...sandbox } = await this.sandbox.snapshot();
    return {
      sandbox,
      units: this.units,
      averagePrice: this.averagePrice,
      lookback: this.lookback,
    };
  }

  /**
   * The books of a resumed run (its sandbox started from `snapshot.sandbox`), so the position's
   * average price the strategy reads is the one it read before.
   */
  restoreBooks(snapshot: SandboxHostSnapshot): void {
    this.units = snapshot.units;
    this.averagePrice = snapshot.averagePrice;
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
