import type { Bars } from "../../engine/bars.js";
import type { Strategy } from "../../engine/strategies/strategy.js";
import type { Order, OrderKind, Side } from "../events.js";

/**
 * The bars a host decides over: the columns of a data set, or of one chunk of it. A host reads
 * bars [from, to) of a `decide` call and the bars before them, never one at or past `to`.
 */
export type BarBlock = Bars;

/** The portfolio as the kernel's order path sees it after the fills before the bar decided. */
export interface PortfolioView {
  readonly cash: number;
  readonly units: number;
  /** The target (signed fraction of equity) the position follows; NaN before the first decision. */
  readonly target: number;
  /** Orders working at the venue: while any works, the kernel asks one bar at a time. */
  readonly openOrders: number;
  /** Those orders themselves, in placement order (what a sandboxed strategy's portfolio shows). */
  readonly working: readonly Order[];
}

/** An explicit order of a strategy: sent through the same pre-trade checks as a target's orders. */
export interface KernelOrder {
  side: Side;
  units: number;
  kind: OrderKind;
  limitPrice?: number;
  stopPrice?: number;
  /**
   * The strategy's own name for the order (a sandboxed strategy's `ctx.order` id): the kernel
   * tells the host the venue's id it got (`placed`), so the host can map one to the other.
   */
  ref?: string;
}

/** A fill as a host hears of it (signed units: a sell is negative). */
export interface KernelFill {
  readonly orderId: string;
  readonly side: Side;
  readonly units: number;
  readonly price: number;
  readonly fee: number;
}

/**
 * Where a host writes the decision of the bar it stopped at. The kernel acts on it at that bar's
 * close (cancels first, then the target's orders, then explicit orders, each through the
 * pre-trade checks) and clears it before the next `decide`.
 */
export interface DecisionSink {
  /** The exposure wanted from the next bar's open: a signed fraction of equity (1 is a full long). */
  target(weight: number): void;
  order(order: KernelOrder): void;
  cancel(orderId: string): void;
}

/**
 * What the kernel drives: a strategy, built-in or sandboxed. The protocol, the same for both:
 *
 * 1. The kernel shows the venue bar `from`'s open (fills of the last decision), then calls
 *    `decide(block, from, to, view, out)` with `view` as of those fills.
 * 2. The host runs its strategy over bars from, from + 1, ... of the block, each at its close.
 *    At the first bar whose decision needs the kernel (a target other than `view.target`, an
 *    order or a cancel) it writes that decision into `out` and returns that bar's index: the
 *    kernel acts at its close, shows the venue the next bar's open, and calls again from the next
 *    bar with the new portfolio. A host that reaches `to` with nothing to decide returns `to`.
 * 3. While an order works at the venue the kernel asks one bar at a time (`to` is `from + 1`):
 *    any bar's open may fill it and change the portfolio the strategy reads.
 *
 * Between decisions the portfolio cannot change (fills only come at a bar's open after orders
 * went out), so running ahead to the first decision gives the orders a bar-by-bar loop gives, to
 * the bit. A built-in family answers at once (`decide` is synchronous); the sandbox answers over
 * a pipe a block at a time (`AsyncStrategyHost`), paying the boundary once per decision or block
 * instead of once per bar.
 */
export interface StrategyHost {
  decide(block: BarBlock, from: number, to: number, view: PortfolioView, out: DecisionSink): number;
  /** The fills the venue booked at the last open, in order (before the next `decide`). */
  fills?(fills: readonly KernelFill[]): void;
  /** The run ended (out of bars, halted or stopped): the host releases what it holds. */
  stop?(): void;
}

/**
 * The same protocol answered asynchronously: a sandboxed strategy behind a pipe. `ahead` (at
 * least `to`) is how far the kernel will go on asking over this block in this run, one decision
 * at a time: a host may run its strategy on to there now and keep its decisions for the calls
 * to come, as long as what the strategy reads is what it would read bar by bar (SandboxHost).
 * A kernel that steps one bar at a time (a paper session) gives no `ahead`: no bar past `to`
 * is the host's to see yet.
 */
export interface AsyncStrategyHost {
  decide(
    block: BarBlock,
    from: number,
    to: number,
    view: PortfolioView,
    out: DecisionSink,
    ahead?: number,
  ): Promise<number>;
  fills?(fills: readonly KernelFill[]): Promise<void> | void;
  stop?(): Promise<void> | void;
  /**
   * What the host needs to resume where it stands (a paper session keeps it with the bar's
   * events): plain JSON, opaque to the caller, asked between calls only. `working`: the ids of
   * the orders working at the venue then, which a resumed session's venue works on.
   */
  snapshot?(working: readonly string[]): Promise<unknown>;
  /**
   * Ends the host now, without onStop: a `decide` in flight rejects (a halt does not wait for a
   * strategy's call to end). Idempotent.
   */
  abort?(): void;
  /** The strategy's log lines since the last drain, and the lines its run dropped so far. */
  drainLogs?(): { lines: readonly StrategyLogLine[]; dropped: number };
  /** The model inferences served since the last drain (a model_output event each). */
  drainModelOutputs?(): readonly {
    time: number | null;
    model: string;
    digest: string;
    outputs: Record<string, { dims: number[]; data: number[] }>;
  }[];
  /**
   * An explicit order with a `ref` was acted on: `orderId` is the venue's id, undefined when the
   * order was refused (a check, or bad units or price). Called at the close it was sent at.
   */
  placed?(ref: string, orderId: string | undefined): void;
}

/** One line of a strategy's `ctx.log`, stamped with the bar it was written at. */
export interface StrategyLogLine {
  /** The bar's time (or the fill's, in onFill); null in init and onStop. */
  readonly time: number | null;
  readonly level: "info" | "warn";
  readonly message: string;
  readonly fields?: Readonly<Record<string, string | number | boolean>>;
}

/**
 * A `Strategy` as a host (a built-in family's is its SDK strategy run in this process,
 * InProcessStrategy): it sees one bar at a time (bar t of the block) and
 * answers a target; the first answer other than the one the position follows is the decision.
 * A class, so every run calls the one `decide` of this prototype (the backtest's hot loop).
 */
export class BuiltInHost implements StrategyHost {
  constructor(private readonly strategy: Strategy) {}

  decide(b: BarBlock, from: number, to: number, view: PortfolioView, out: DecisionSink): number {
    const held = view.target;
    const strategy = this.strategy;
    for (let t = from; t < to; t++) {
      const target = strategy.onBar(b, t);
      // The order pipeline's own test (`wouldMove`): NaN never equals the target held.
      if (target !== held) {
        out.target(target);
        return t;
      }
    }
    return to;
  }
}
