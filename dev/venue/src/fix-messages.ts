// jspurefix resolves its parts through tsyringe, which needs the metadata polyfill loaded first.
import "reflect-metadata";
import type { ILooseObject } from "jspurefix";
import { ExecType, OrdStatus, OrdType, Side } from "jspurefix/dist/types/FIX4.4/repo/index.js";
import type { Execution, OrderSide, OrderStatus, VenueOrder } from "./exchange.js";

const execTypes: Record<Execution["kind"], string> = {
  new: ExecType.New,
  trade: ExecType.Trade,
  canceled: ExecType.Canceled,
  rejected: ExecType.Rejected,
};

const ordStatuses: Record<OrderStatus, string> = {
  new: OrdStatus.New,
  partially_filled: OrdStatus.PartiallyFilled,
  filled: OrdStatus.Filled,
  canceled: OrdStatus.Canceled,
  rejected: OrdStatus.Rejected,
};

export const fixSide = (side: OrderSide): string => (side === "buy" ? Side.Buy : Side.Sell);

export function parseSide(side: unknown): OrderSide | null {
  return side === Side.Buy ? "buy" : side === Side.Sell ? "sell" : null;
}

function orderFields(order: VenueOrder): ILooseObject {
  return {
    OrderID: order.orderId,
    ClOrdID: order.clOrdId,
    OrdStatus: ordStatuses[order.status],
    Instrument: { Symbol: order.symbol },
    Side: fixSide(order.side),
    OrderQtyData: { OrderQty: order.qty },
    OrdType: order.kind === "limit" ? OrdType.Limit : OrdType.Market,
    ...(order.price !== undefined ? { Price: order.price } : {}),
    LeavesQty: order.leavesQty,
    CumQty: order.cumQty,
    AvgPx: order.avgPx,
  };
}

/** The ExecutionReport (8) telling an order's owner of one change. */
export function executionReport(e: Execution): ILooseObject {
  const fields = orderFields(e.order);
  if (e.cancelClOrdId) {
    fields.ClOrdID = e.cancelClOrdId;
    fields.OrigClOrdID = e.order.clOrdId;
  }
  return {
    ...fields,
    ExecID: e.execId,
    ExecType: execTypes[e.kind],
    ...(e.lastQty !== undefined ? { LastQty: e.lastQty, LastPx: e.lastPx } : {}),
    ...(e.kind === "rejected" ? { OrdRejReason: 99 } : {}),
    ...(e.text ? { Text: e.text } : {}),
    TransactTime: e.transactTime,
  };
}

/** An ExecutionReport with ExecType OrderStatus (I): the answer to a status request. */
export function statusReport(order: VenueOrder, execId: string, extra: ILooseObject): ILooseObject {
  return {
    ...orderFields(order),
    ExecID: execId,
    ExecType: ExecType.OrderStatus,
    TransactTime: new Date(),
    ...extra,
  };
}
