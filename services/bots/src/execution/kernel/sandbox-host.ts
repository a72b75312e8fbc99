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

  private keep(lines: readonly LogLine[], dropped: number): void {
    for (const line of lines)
      if (this.logs.length < LOGS_KEPT) this.logs.push(line);
      else this.logsDropped++;
    this.logsDropped = Math.max(this.logsDropped, dropped);
  }
}
