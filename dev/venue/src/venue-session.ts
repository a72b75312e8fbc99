// jspurefix resolves its parts through tsyringe, which needs the metadata polyfill loaded first.
import "reflect-metadata";
import { timingSafeEqual, createHash } from "node:crypto";
import {
  AsciiSession,
  MsgType,
  type IJsFixConfig,
  type ILooseObject,
  type MsgView,
  type SendCallback,
} from "jspurefix";
import {
  CxlRejReason,
  CxlRejResponseTo,
  MassCancelRejectReason,
  MassCancelRequestType,
  MassCancelResponse,
  MassStatusReqType,
  MDEntryType,
  MDReqRejReason,
  OrdStatus,
  OrdType,
  SubscriptionRequestType,
} from "jspurefix/dist/types/FIX4.4/repo/index.js";
import type { Exchange, Execution } from "./exchange.js";
import type { FaultSwitches } from "./faults.js";
import { executionReport, fixSide, parseSide, statusReport } from "./fix-messages.js";
import { MarketDataSubscriptions } from "./market-data.js";

/** What every session of one venue shares. */
export interface VenueContext {
  readonly exchange: Exchange;
  readonly faults: FaultSwitches;
  readonly credentials: { username: string; password: string };
  /** More accounts that may log on, each trading its own orders and positions. */
  readonly accounts?: readonly { username: string; password: string }[];
  readonly sessions: Set<VenueSession>;
}

const digest = (s: string) => createHash("sha256").update(s).digest();
const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));
const MAX_SYMBOLS = 100;
const MAX_HEARTBEAT_SECONDS = 3600;
/** How long the reorder switch holds a report waiting for the next one to overtake it. */
const REORDER_HOLD_MS = 200;

/**
 * One logged-on FIX client. Orders belong to the Username it logged on with, so a client that
 * reconnects (any SenderCompID) finds its orders again through OrderStatusRequest and
 * OrderMassStatusRequest, and hears of fills on them.
 */
export class VenueSession extends AsciiSession {
  account: string | null = null;
  private readonly detach: Array<() => void> = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly marketData: MarketDataSubscriptions;
  /** A report the reorder switch holds back until the next one has gone. */
  private held: { go: () => void; timer: NodeJS.Timeout } | null = null;

  constructor(
    config: IJsFixConfig,
    private readonly venue: VenueContext,
  ) {
    super(config);
    this.marketData = new MarketDataSubscriptions(venue.exchange, (t, b) => this.send(t, b));
  }

  /** Drops the connection without a Logout, as a venue that crashed or a cut cable would. */
  drop(reason: string): void {
    this.terminate(new Error(reason));
  }

  protected override send(
    msgType: string,
    obj: ILooseObject,
    callback: SendCallback | null = null,
  ): void {
    // A hung venue says nothing at all, heartbeats and answers to TestRequest included.
    if (this.venue.faults.hang) return;
    super.send(msgType, obj, callback);
  }

  protected onLogon(view: MsgView, user: string, password: string): boolean | Promise<boolean> {
    const { credentials, accounts = [] } = this.venue;
    const ok =
      typeof user === "string" &&
      typeof password === "string" &&
      [credentials, ...accounts].some(
        (c) => sameSecret(user, c.username) && sameSecret(password, c.password),
      );
    // A rejected promise is how jspurefix lets the Logout carry our reason (Text 58).
    if (!ok) return Promise.reject(new Error("invalid Username or Password"));
    this.account = user;
    this.echoHeartbeatInterval(Number(view.getTyped(108)));
    return true;
  }

  /**
   * A venue answers Logon with the client's HeartBtInt and keeps to it, so a client that asks
   * for 1 s notices a silent venue in seconds rather than at the venue's own interval.
   */
  private echoHeartbeatInterval(seconds: number): void {
    if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_HEARTBEAT_SECONDS) return;
    this.config.description.HeartBtInt = seconds;
    (this.sessionState as { heartBeat: number }).heartBeat = seconds;
  }

  protected onReady(): void {
    const { exchange, sessions } = this.venue;
    sessions.add(this);
    this.detach.push(
      exchange.onExecution((account, e) => {
        if (account === this.account) this.sendExecution(e);
      }),
      exchange.onBookChange((symbol) => this.marketData.onBookChange(symbol)),
      exchange.onTrade((trade) => this.marketData.onTrade(trade)),
    );
  }

  protected onStopped(): void {
    this.venue.sessions.delete(this);
    for (const d of this.detach.splice(0)) d();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.held = null;
    this.marketData.clear();
  }

  protected onDecoded(): void {}
  protected onEncoded(): void {}

  protected onApplicationMsg(msgType: string, view: MsgView): void {
    if (this.venue.faults.hang || !this.account) return;
    const msg = (view.toObject() ?? {}) as ILooseObject;
    switch (msgType) {
      case MsgType.NewOrderSingle:
        return this.newOrder(msg);
      case MsgType.OrderCancelRequest:
        return this.cancel(msg);
      case MsgType.OrderMassCancelRequest:
        return this.massCancel(msg);
      case MsgType.OrderStatusRequest:
        return this.orderStatus(msg);
      case MsgType.OrderMassStatusRequest:
        return this.massStatus(msg);
      case MsgType.MarketDataRequest:
        return this.marketDataRequest(msg);
      case MsgType.RequestForPositions:
        return this.positions(msg);
      default:
        this.send(MsgType.BusinessMessageReject, {
          RefSeqNum: view.getTyped(34) as number,
          RefMsgType: msgType,
          BusinessRejectReason: 3, // unsupported message type
          Text: `the dev venue does not handle MsgType ${msgType}`,
        });
    }
  }

  private sendExecution(e: Execution): void {
    const report = executionReport(e);
    const faults = this.venue.faults;
    const go = () => {
      if (faults.gapSequenceNumbers) this.skipSequenceNumber();
      this.send(MsgType.ExecutionReport, report);
      if (faults.duplicateExecutionReports)
        this.send(MsgType.ExecutionReport, { ...report, StandardHeader: { PossResend: true } });
    };
    if (faults.reorderExecutionReports) return this.reordered(go);
    if (faults.delayExecutionReportsMs <= 0) return go();
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      go();
    }, faults.delayExecutionReportsMs);
    this.timers.add(timer);
  }

  private skipSequenceNumber(): void {
    const transmitter = this.transport?.transmitter as { msgSeqNum?: number } | undefined;
    if (transmitter && typeof transmitter.msgSeqNum === "number") transmitter.msgSeqNum++;
  }

  private reordered(go: () => void): void {
    const held = this.held;
    if (held) {
      clearTimeout(held.timer);
      this.timers.delete(held.timer);
      this.held = null;
      go();
      return held.go();
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.held = null;
      go();
    }, REORDER_HOLD_MS);
    this.timers.add(timer);
    this.held = { go, timer };
  }

  private newOrder(msg: ILooseObject): void {
    const { exchange, faults } = this.venue;
    const side = parseSide(msg.Side);
    const ordType = msg.OrdType as string;
    const req = {
      clOrdId: String(msg.ClOrdID ?? ""),
      symbol: String((msg.Instrument as ILooseObject | undefined)?.Symbol ?? ""),
      side: side ?? "buy",
      kind: ordType === OrdType.Market ? ("market" as const) : ("limit" as const),
      qty: Number((msg.OrderQtyData as ILooseObject | undefined)?.OrderQty),
      ...(msg.Price !== undefined ? { price: Number(msg.Price) } : {}),
    };
    const account = this.account!;
    if (faults.rejectNewOrders)
      return void exchange.reject(account, req, "the venue rejects all new orders (fault switch)");
    if (!side) return void exchange.reject(account, req, `unsupported Side ${String(msg.Side)}`);
    if (ordType !== OrdType.Market && ordType !== OrdType.Limit)
      return void exchange.reject(
        account,
        req,
        `unsupported OrdType ${String(ordType)}: market (1) and limit (2) only`,
      );
    exchange.submit(account, req);
  }

  private cancel(msg: ILooseObject): void {
    const clOrdId = String(msg.ClOrdID ?? "");
    const origClOrdId = String(msg.OrigClOrdID ?? "");
    const result = this.venue.exchange.cancel(this.account!, origClOrdId, clOrdId);
    if ("refused" in result)
      this.send(MsgType.OrderCancelReject, {
        OrderID: result.order?.orderId ?? "NONE",
        ClOrdID: clOrdId,
        OrigClOrdID: origClOrdId,
        OrdStatus: result.order ? statusOf(result.order.status) : OrdStatus.Rejected,
        CxlRejResponseTo: CxlRejResponseTo.OrderCancelRequest,
        CxlRejReason:
          result.refused === "unknown" ? CxlRejReason.UnknownOrder : CxlRejReason.TooLateToCancel,
        Text:
          result.refused === "unknown"
            ? `no order with ClOrdID ${origClOrdId}`
            : `order ${origClOrdId} is already ${result.order?.status}`,
      });
  }

  private massCancel(msg: ILooseObject): void {
    const type = String(msg.MassCancelRequestType ?? "");
    const symbol = (msg.Instrument as ILooseObject | undefined)?.Symbol as string | undefined;
    const clOrdId = String(msg.ClOrdID ?? "");
    const refuse = (reason: string, text: string) =>
      this.send(MsgType.OrderMassCancelReport, {
        ClOrdID: clOrdId,
        OrderID: "NONE",
        MassCancelRequestType: type,
        MassCancelResponse: MassCancelResponse.CancelRequestRejected,
        MassCancelRejectReason: reason,
        Text: text,
      });
    if (type === MassCancelRequestType.CancelOrdersForASecurity && !symbol)
      return refuse(
        MassCancelRejectReason.InvalidOrUnknownSecurity,
        "cancel for a security needs Instrument.Symbol",
      );
    if (
      type === MassCancelRequestType.CancelOrdersForASecurity &&
      !this.venue.exchange.lists(symbol!)
    )
      return refuse(MassCancelRejectReason.InvalidOrUnknownSecurity, `unknown symbol ${symbol}`);
    if (
      type !== MassCancelRequestType.CancelAllOrders &&
      type !== MassCancelRequestType.CancelOrdersForASecurity
    )
      return refuse(
        MassCancelRejectReason.MassCancelNotSupported,
        "MassCancelRequestType 1 (security) and 7 (all) only",
      );
    const count = this.venue.exchange.massCancel(
      this.account!,
      type === MassCancelRequestType.CancelOrdersForASecurity ? symbol : undefined,
      clOrdId,
    );
    this.send(MsgType.OrderMassCancelReport, {
      ClOrdID: clOrdId,
      OrderID: this.venue.exchange.nextId("M"),
      MassCancelRequestType: type,
      MassCancelResponse: type,
      TotalAffectedOrders: count,
      TransactTime: new Date(),
    });
  }

  private orderStatus(msg: ILooseObject): void {
    const clOrdId = String(msg.ClOrdID ?? "");
    const reqId = msg.OrdStatusReqID as string | undefined;
    const order = this.venue.exchange.order(this.account!, clOrdId);
    const extra = reqId ? { OrdStatusReqID: reqId } : {};
    const execId = this.venue.exchange.nextId("S");
    if (order) return this.send(MsgType.ExecutionReport, statusReport(order, execId, extra));
    this.send(MsgType.ExecutionReport, {
      OrderID: "NONE",
      ClOrdID: clOrdId,
      ExecID: execId,
      ExecType: "I",
      OrdStatus: OrdStatus.Rejected,
      OrdRejReason: 5, // unknown order
      Instrument: msg.Instrument ?? { Symbol: "" },
      Side: msg.Side ?? fixSide("buy"),
      LeavesQty: 0,
      CumQty: 0,
      AvgPx: 0,
      Text: `no order with ClOrdID ${clOrdId}`,
      ...extra,
    });
  }

  private massStatus(msg: ILooseObject): void {
    const reqId = String(msg.MassStatusReqID ?? "");
    const type = Number(msg.MassStatusReqType);
    const symbol = (msg.Instrument as ILooseObject | undefined)?.Symbol as string | undefined;
    const bySymbol = type === MassStatusReqType.StatusForOrdersForASecurity;
    const open = this.venue.exchange.openOrders(this.account!, bySymbol ? symbol : undefined);
    if (open.length === 0) {
      // FIX answers "none" with one report that says so rather than with silence.
      return this.send(MsgType.ExecutionReport, {
        OrderID: "NONE",
        ExecID: this.venue.exchange.nextId("S"),
        ExecType: "I",
        OrdStatus: OrdStatus.Rejected,
        Instrument: { Symbol: symbol ?? "" },
        Side: fixSide("buy"),
        LeavesQty: 0,
        CumQty: 0,
        AvgPx: 0,
        MassStatusReqID: reqId,
        TotNumReports: 0,
        LastRptRequested: true,
        Text: "no open orders",
      });
    }
    open.forEach((order, i) =>
      this.send(
        MsgType.ExecutionReport,
        statusReport(order, this.venue.exchange.nextId("S"), {
          MassStatusReqID: reqId,
          TotNumReports: open.length,
          LastRptRequested: i === open.length - 1,
        }),
      ),
    );
  }

  /**
   * RequestForPositions (AN), type 0 (positions): an ack (AO) with the count, then a
   * PositionReport (AP) per symbol the account holds (net of its fills; no clearing, so the
   * settlement prices are 0 and the business date is today).
   */
  private positions(msg: ILooseObject): void {
    const { exchange } = this.venue;
    const account = this.account!;
    const reqId = String(msg.PosReqID ?? "");
    const symbol = (msg.Instrument as ILooseObject | undefined)?.Symbol as string | undefined;
    const ack = (result: number, total: number, text?: string) =>
      this.send(MsgType.RequestForPositionsAck, {
        PosMaintRptID: exchange.nextId("P"),
        PosReqID: reqId,
        TotalNumPosReports: total,
        PosReqResult: result,
        PosReqStatus: result === 0 || result === 2 ? 0 : 2,
        Account: account,
        AccountType: 1,
        ...(text ? { Text: text } : {}),
      });
    if (Number(msg.PosReqType) !== 0) return ack(4, 0, "PosReqType 0 (positions) only");
    const held = exchange.positions(account).filter((p) => !symbol || p.symbol === symbol);
    ack(held.length > 0 ? 0 : 2, held.length);
    for (const p of held)
      this.send(MsgType.PositionReport, {
        PosMaintRptID: exchange.nextId("P"),
        PosReqID: reqId,
        PosReqType: 0,
        TotalNumPosReports: held.length,
        PosReqResult: 0,
        ClearingBusinessDate: new Date(),
        Account: account,
        AccountType: 1,
        Instrument: { Symbol: p.symbol },
        SettlPrice: 0,
        SettlPriceType: 1,
        PriorSettlPrice: 0,
        PositionQty: [
          { PosType: "TQ", LongQty: Math.max(p.qty, 0), ShortQty: Math.max(-p.qty, 0) },
        ],
      });
  }

  private marketDataRequest(msg: ILooseObject): void {
    const reqId = String(msg.MDReqID ?? "");
    const type = String(msg.SubscriptionRequestType ?? "");
    const reject = (reason: string, text: string) =>
      this.send(MsgType.MarketDataRequestReject, {
        MDReqID: reqId,
        MDReqRejReason: reason,
        Text: text,
      });
    if (type === SubscriptionRequestType.DisablePreviousSnapshot) {
      if (!this.marketData.remove(reqId))
        reject(MDReqRejReason.UnknownSymbol, `no subscription ${reqId}`);
      return;
    }
    if (
      type !== SubscriptionRequestType.Snapshot &&
      type !== SubscriptionRequestType.SnapshotAndUpdates
    )
      return reject(
        MDReqRejReason.UnsupportedSubscriptionRequestType,
        `SubscriptionRequestType ${type}`,
      );
    if (this.marketData.has(reqId))
      return reject(MDReqRejReason.DuplicateMdReqId, `MDReqID ${reqId} is in use`);
    const groups = (msg.InstrmtMDReqGrp as ILooseObject[] | undefined) ?? [];
    const symbols = groups.map((g) =>
      String((g.Instrument as ILooseObject | undefined)?.Symbol ?? ""),
    );
    if (symbols.length === 0 || symbols.length > MAX_SYMBOLS)
      return reject(MDReqRejReason.UnknownSymbol, `name 1..${MAX_SYMBOLS} symbols`);
    const unknown = symbols.find((s) => !this.venue.exchange.lists(s));
    if (unknown !== undefined)
      return reject(MDReqRejReason.UnknownSymbol, `unknown symbol ${JSON.stringify(unknown)}`);
    const types = new Set(
      ((msg.MDReqGrp as ILooseObject[] | undefined) ?? []).map((g) => String(g.MDEntryType)),
    );
    if (types.size === 0) types.add(MDEntryType.Bid).add(MDEntryType.Offer);
    const unsupported = [...types].find(
      (t) => t !== MDEntryType.Bid && t !== MDEntryType.Offer && t !== MDEntryType.Trade,
    );
    if (unsupported !== undefined)
      return reject(
        MDReqRejReason.UnsupportedMdEntryType,
        `MDEntryType ${unsupported}: bid, offer and trade only`,
      );
    const depth = Number(msg.MarketDepth ?? 0);
    if (!Number.isInteger(depth) || depth < 0)
      return reject(
        MDReqRejReason.UnsupportedMarketDepth,
        "MarketDepth must be 0 (full) or a level count",
      );
    this.marketData.subscribe(
      reqId,
      symbols,
      depth,
      types,
      type === SubscriptionRequestType.SnapshotAndUpdates,
    );
  }
}

function statusOf(status: string): string {
  return (
    {
      new: OrdStatus.New,
      partially_filled: OrdStatus.PartiallyFilled,
      filled: OrdStatus.Filled,
      canceled: OrdStatus.Canceled,
      rejected: OrdStatus.Rejected,
    } as Record<string, string>
  )[status]!;
}
