import type { ExecutionEvent, Order } from "./events.js";
import {
  firstRefusal,
  noteAccepted,
  type PreTradeCheck,
  type PreTradeContext,
} from "./pre-trade.js";
import type { KernelOrder } from "./kernel/strategy-host.js";
import type { Venue } from "./kernel/venue.js";
import { ordersForTarget, type OrderIntent, type Sizing } from "./sizing.js";

/**
 * The one order path of every run: strategy target -> sizing -> pre-trade checks -> venue. The
 * execution kernel (see kernel/) builds it and drives it bar by bar: the venue's `onBar` at the
 * open fills what was sent, `decide` at the close turns the strategy's answer into orders. An order moves the position when the target changes; a target that stays
 * put sends nothing, so a held position is not re-sized as prices move.
 */
export class OrderPipeline {
  /**
   * The target the position was last moved to. NaN until the first decision, which brings the
   * position in line whatever it was; a resumed session restores it (see `resumeAt`).
   */
  private held = NaN;

  constructor(
    private readonly broker: Venue,
    private readonly sizing: Sizing,
    private readonly checks: readonly PreTradeCheck[],
    /** Where a refused order is recorded (the broker's records go to the same place). */
    private readonly emit?: (e: ExecutionEvent) => void,
  ) {}

  /**
   * A session resumed mid-way continues as if never stopped: the target its strategy relearned
   * at the last bar it saw is the one its position already follows. (After a kill switch halt it
   * therefore trades on the strategy's next change of mind, not on the decision the halt undid.)
   */
  resumeAt(target: number): void {
    this.held = target;
  }

  /** The target the position follows (NaN before the first decision). */
  get target(): number {
    return this.held;
  }

  /** Whether `decide(target)` has anything to do: the target is not the one the position follows. */
  wouldMove(target: number): boolean {
    return target !== this.held;
  }

  /**
   * At a bar's close: sends the orders that move the position to `target`, priced at `close`.
   * `time` is the bar's time and `reference` the previous bar's close: the clock and the
   * reference price of the time-window controls and the price collar.
   */
  decide(target: number, close: number, time = NaN, reference = NaN): void {
    if (target === this.held) return;
    const broker = this.broker;
    // An order still working (a limit not reached) decides first; the target is tried again next bar.
    if (broker.openOrders.length > 0) return;
    this.held = target;
    const equity = broker.cash + broker.units * close;
    const orders = ordersForTarget(target, broker.units, equity, close, this.sizing);
    let accepted = 0;
    for (const order of orders) {
      const context: PreTradeContext | null =
        this.checks.length === 0
          ? null
          : {
              symbol: broker.symbol,
              price: close,
              equity,
              cash: broker.cash,
              position: broker.units,
              accepted,
              time,
              reference,
            };
      const refusal = context ? firstRefusal(this.checks, order, context) : null;
      // A refused order is recorded and not retried: the strategy's next change of target decides anew.
      if (refusal) {
        this.emit?.({
          type: "order_rejected",
          data: { side: order.side, units: order.units, ...refusal },
        });
        continue;
      }
      if (context) noteAccepted(this.checks, order, context);
      broker.submit(order.side, order.units);
      accepted += order.side === "buy" ? order.units : -order.units;
    }
  }

  /**
   * At a bar's close: an explicit order of a strategy (market, limit or stop), through the same
   * pre-trade checks as a target's orders; answers the order placed, or undefined when it was
   * refused (units or a price that are not a positive number, or a check), with a record saying so.
   */
  send(order: KernelOrder, close: number, time = NaN, reference = NaN): Order | undefined {
    const broker = this.broker;
    const position = broker.units;
    const intent: OrderIntent = {
      side: order.side,
      units: order.units,
      closes: position !== 0 && (order.side === "buy" ? -position : position) === order.units,
    };
    const refuse = (check: string, reason: string) => {
      this.emit?.({
        type: "order_rejected",
        data: { side: order.side, units: order.units, check, reason },
      });
      return undefined;
    };
    if (!(order.units > 0) || !Number.isFinite(order.units))
      return refuse("order", `units must be a positive number, not ${order.units}`);
    if (order.kind === "limit" && !(order.limitPrice! > 0 && Number.isFinite(order.limitPrice)))
      return refuse("order", `a limit order needs a positive limit price, not ${order.limitPrice}`);
    if (order.kind === "stop" && !(order.stopPrice! > 0 && Number.isFinite(order.stopPrice)))
      return refuse("order", `a stop order needs a positive stop price, not ${order.stopPrice}`);
    if (this.checks.length > 0) {
      const context: PreTradeContext = {
        symbol: broker.symbol,
        price: close,
        equity: broker.cash + position * close,
        cash: broker.cash,
        position,
        accepted: 0,
        time,
        reference,
      };
      const refusal = firstRefusal(this.checks, intent, context);
      if (refusal) {
        this.emit?.({
          type: "order_rejected",
          data: { side: order.side, units: order.units, ...refusal },
        });
        return undefined;
      }
      noteAccepted(this.checks, intent, context);
    }
    return broker.submit(
      order.side,
      order.units,
      order.kind,
      order.kind === "stop" ? order.stopPrice : order.limitPrice,
    );
  }
}
