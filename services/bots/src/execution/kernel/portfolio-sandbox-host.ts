import type { AlignedBars } from "../../engine/portfolio/aligned.js";
import type {
  PortfolioHost,
  PortfolioRun,
  PortfolioSink,
} from "../../engine/portfolio/portfolio-run.js";
import type {
  FillView,
  LogLine,
  PortfolioView as SandboxPortfolio,
  Sandbox,
} from "../../sandbox/index.js";

/** Log lines a run keeps from its strategy (the sandbox bounds them per run as well). */
const LOGS_KEPT = 1_000;

/**
 * A sandboxed strategy trading a whole universe: the block it gets holds every symbol's columns
 * on the portfolio's clock (NaN where a symbol has no bar), its portfolio every position and
 * working order, and its `ctx.target(symbol, ...)` and `ctx.order({ symbol, ... })` go to that
 * symbol's venue through the portfolio's checks. The sandbox answers after each decision, the
 * portfolio then moves on to that bar's close (the order path acts there) and asks again from
 * the next bar with the fills of its open.
 */
export class PortfolioSandboxHost implements PortfolioHost {
  readonly logs: LogLine[] = [];
  logsDropped = 0;
  private readonly index: Map<string, number>;
  /** The strategy's order ids and the venue's, both ways. */
  private readonly venueIds = new Map<string, string>();
  private readonly strategyIds = new Map<string, string>();

  constructor(
    private readonly sandbox: Sandbox,
    private readonly symbols: readonly string[],
  ) {
    this.index = new Map(symbols.map((s, i) => [s, i]));
  }

  async decide(
    bars: AlignedBars,
    from: number,
    to: number,
    run: PortfolioRun,
    out: PortfolioSink,
  ): Promise<number> {
    const answer = await this.sandbox.decide(
      bars.bars,
      from,
      to,
      this.portfolio(run),
      this.fills(run, bars.time[from]!),
    );
    this.keep(answer.logs, answer.logsDropped);
    const first = answer.decisions[0];
    if (!first) return to;
    run.decidingAt(first.bar);
    for (const d of answer.decisions) {
      if (d.bar !== first.bar) break;
      for (const id of d.cancels) {
        const venueId = this.venueIds.get(id);
        if (venueId !== undefined) out.cancel(venueId);
      }
      for (const { symbol, target } of d.targets) {
        const i = this.index.get(symbol)!;
        if ("weight" in target) out.target(i, target.weight);
        else out.units(i, target.units);
      }
      for (const o of d.orders) {
        const id = run.order(this.index.get(o.symbol)!, {
          side: o.side,
          units: o.units,
          kind: o.type,
          ...(o.type === "limit" ? { limitPrice: o.limitPrice } : {}),
          ...(o.type === "stop" ? { stopPrice: o.stopPrice } : {}),
        });
        if (id === undefined) continue;
        this.venueIds.set(o.id, id);
        this.strategyIds.set(id, o.id);
      }
    }
    return first.bar;
  }

  async stop(): Promise<void> {
    const answer = await this.sandbox.stop();
    this.keep(answer.logs, answer.logsDropped);
  }

  private strategyId(venueId: string): string {
    return this.strategyIds.get(venueId) ?? `target:${venueId}`;
  }

  private portfolio(run: PortfolioRun): SandboxPortfolio {
    const view: SandboxPortfolio = { cash: run.cash, positions: [], openOrders: [] };
    for (const s of run.sleeves) {
      if (s.units !== 0)
        view.positions.push({ symbol: s.symbol, units: s.units, averagePrice: s.averagePrice });
      for (const o of s.broker.openOrders)
        view.openOrders.push({
          id: this.strategyId(o.id),
          symbol: s.symbol,
          side: o.side,
          type: o.kind,
          units: o.units,
          ...(o.limitPrice !== undefined ? { limitPrice: o.limitPrice } : {}),
          ...(o.stopPrice !== undefined ? { stopPrice: o.stopPrice } : {}),
        });
    }
    return view;
  }

  /** The fills booked since the last call (at this bar's open), in symbol order. */
  private fills(run: PortfolioRun, time: number): FillView[] {
    const out: FillView[] = [];
    for (const s of run.sleeves) {
      for (const f of s.fillsDue)
        out.push({
          orderId: this.strategyId(f.order.id),
          symbol: s.symbol,
          side: f.order.side,
          units: Math.abs(f.signed),
          price: f.price,
          fee: f.fee,
          time,
        });
      s.fillsDue.length = 0;
    }
    return out;
  }

  private keep(lines: readonly LogLine[], dropped: number): void {
    for (const line of lines)
      if (this.logs.length < LOGS_KEPT) this.logs.push(line);
      else this.logsDropped++;
    this.logsDropped = Math.max(this.logsDropped, dropped);
  }
}
