import type { Bars } from "../../engine/bars.js";
import {
  StrategyFailure,
  type Decision,
  type FillView,
  type LogLine,
  type PortfolioView as SandboxPortfolio,
  type Sandbox,
} from "../../sandbox/index.js";
import type {
  AsyncStrategyHost,
  BarBlock,
  DecisionSink,
  KernelFill,
  PortfolioView,
} from "./strategy-host.js";

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
        this.write(d, out);
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
    if (this.waiting) answer = await this.sandbox.resume(portfolio, to);
    else {
      // Fills came at this bar's open.
      const time = this.block[0]!.time[from]!;
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
      answer = await this.sandbox.decide(this.block, this.next, end, portfolio, fills, to);
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

  private keep(lines: readonly LogLine[], dropped: number): void {
    for (const line of lines)
      if (this.logs.length < LOGS_KEPT) this.logs.push(line);
      else this.logsDropped++;
    this.logsDropped = Math.max(this.logsDropped, dropped);
  }
}
