import { randomUUID } from "node:crypto";
import type { ILooseObject } from "jspurefix";
import {
  TERMINAL_STATES,
  VenueError,
  type LiveVenue,
  type VenueBalance,
  type VenueCapabilities,
  type VenueHealth,
  type VenueOrderRequest,
  type VenueOrderStatus,
  type VenuePosition,
  type VenueTrade,
} from "../../kernel/live-venue.js";
import type { VenueReport } from "../../kernel/venue.js";
import { OrderLedger } from "../order-ledger.js";
import { fixSide, ledgerReport } from "./fix-reports.js";
import { PendingRequests } from "./fix-requests.js";
import { startInitiator, type InitiatorHandle } from "./fix-runtime.js";

export interface FixVenueOptions {
  host?: string;
  port: number;
  username: string;
  password: string;
  senderCompId?: string;
  targetCompId?: string;
  /** HeartBtInt asked for; the venue's silence for about 2.5 of these freezes the adapter. */
  heartbeatSeconds?: number;
  /** Where the kernel's records go (order_placed, order_filled, ...), each once. */
  report: VenueReport;
  startCash?: number;
  /** The deadline of each acknowledgement, cancel, status and subscription. */
  deadlineMs?: number;
  logonTimeoutMs?: number;
  /** Attempts to log on again after the session dropped (0: none); a hung venue is not retried. */
  reconnectAttempts?: number;
  reconnectDelayMs?: number;
}

export const FIX_CAPABILITIES: VenueCapabilities = {
  orderKinds: ["market", "limit"],
  massCancel: "venue",
  massStatus: true,
  positions: "venue",
  balances: "none",
  marketData: "push",
  cannot: [
    "stop orders, TimeInForce and order replace (OrderCancelReplaceRequest) are not sent",
    "balances: no CollateralInquiry; balances() answers unsupported",
    "market data is trades only (MarketDataRequest entry type 2); bars are built by the caller",
    "no FIX over TLS and no persistent message store: a reconnect learns state from status requests",
  ],
};

/**
 * The `fix` venue: a FIX 4.4 initiator on jspurefix. Orders go out as NewOrderSingle and come
 * back as ExecutionReports folded into an OrderLedger (so a report twice, late or out of order
 * books each fill once); cancels as OrderCancelRequest, mass cancel as OrderMassCancelRequest,
 * status as OrderStatusRequest and OrderMassStatusRequest, trades as MarketDataRequest.
 *
 * Faults: a dropped session marks every open order unknown, logs on again and asks the venue
 * what became of each (mass status, then a status request per order mass status did not name);
 * a venue that stops answering ends the session at the heartbeat timeout and the adapter reports
 * itself `frozen`, sending nothing until `connect` succeeds again; a refused logon is `failed`.
 */
export class FixVenue implements LiveVenue {
  readonly name = "fix";
  readonly capabilities = FIX_CAPABILITIES;
  readonly ledger: OrderLedger;
  private session: InitiatorHandle | null = null;
  private generation = 0;
  private state: VenueHealth = { state: "idle", since: new Date() };
  private readonly listeners = new Set<(h: VenueHealth) => void>();
  private readonly requests: PendingRequests;
  private readonly cancelIds = new Map<string, string>();
  private readonly trades = new Map<string, (t: VenueTrade) => void>();
  private connecting: Promise<void> | null = null;
  private closed = false;
  private seq = 0;
  private readonly o: Required<Omit<FixVenueOptions, "report" | "startCash">>;

  constructor(options: FixVenueOptions) {
    this.ledger = new OrderLedger(options.report, options.startCash ?? 0);
    this.requests = new PendingRequests(options.deadlineMs ?? 5_000);
    this.o = {
      host: "127.0.0.1",
      senderCompId: "SVC-BOT",
      targetCompId: "SVC-VENUE",
      heartbeatSeconds: 30,
      deadlineMs: 5_000,
      logonTimeoutMs: 10_000,
      reconnectAttempts: 5,
      reconnectDelayMs: 500,
      ...options,
    };
  }

  get health(): VenueHealth {
    return { ...this.state };
  }

  onHealth(listener: (h: VenueHealth) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  connect(): Promise<void> {
    if (this.closed) return Promise.reject(new VenueError("disconnected", "the adapter is closed"));
    if (this.state.state === "connected" && this.session) return Promise.resolve();
    this.connecting ??= this.logOn().finally(() => (this.connecting = null));
    return this.connecting;
  }

  async submit(order: VenueOrderRequest): Promise<VenueOrderStatus> {
    this.mustBeConnected();
    if (order.kind !== "market" && order.kind !== "limit")
      throw new VenueError("unsupported", `the fix venue sends market and limit orders only`);
    this.ledger.add(order);
    this.session!.send("D", {
      ClOrdID: order.clientId,
      Instrument: { Symbol: order.symbol },
      Side: fixSide(order.side),
      TransactTime: new Date(),
      OrderQtyData: { OrderQty: order.units },
      OrdType: order.kind === "market" ? "1" : "2",
      ...(order.kind === "limit" ? { Price: order.limitPrice } : {}),
    });
    try {
      return await this.ledger.waitFor(
        order.clientId,
        (s) => s.state !== "pending" && s.state !== "unknown",
        this.o.deadlineMs,
        `order ${order.clientId}`,
      );
    } catch (e) {
      // Sent, never acknowledged: the order may work at the venue; a status request decides.
      this.ledger.markUnknownOne(order.clientId);
      throw e;
    }
  }

  async cancel(clientId: string, reason = "cancel requested"): Promise<VenueOrderStatus> {
    this.mustBeConnected();
    const known = this.ledger.get(clientId);
    if (!known)
      throw new VenueError("rejected", `no order ${clientId} was sent through this venue`);
    if (TERMINAL_STATES.has(known.state)) return known;
    this.ledger.noteCancelReason(clientId, reason);
    const cancelId = this.nextId(`${clientId}~x`);
    this.cancelIds.set(cancelId, clientId);
    // An OrderCancelReject answers the cancel's id; its deadline is the Canceled report's.
    const refused = this.requests.expect(cancelId, `cancel of ${clientId}`).then(
      () => null,
      () => new Promise<null>(() => {}),
    );
    this.session!.send("F", {
      OrigClOrdID: clientId,
      ClOrdID: cancelId,
      Instrument: { Symbol: known.symbol },
      Side: fixSide(known.side),
      TransactTime: new Date(),
      OrderQtyData: { OrderQty: known.units },
    });
    const done = this.ledger.waitFor(
      clientId,
      (s) => TERMINAL_STATES.has(s.state),
      this.o.deadlineMs,
      `cancel of ${clientId}`,
    );
    let first: VenueOrderStatus | null;
    try {
      first = await Promise.race([done, refused]);
    } finally {
      this.requests.forget(cancelId);
    }
    // OrderCancelReject: too late (already done) or unknown; the venue's status says which.
    return first ?? this.status(clientId);
  }

  async cancelAll(symbol?: string): Promise<number> {
    this.mustBeConnected();
    const id = this.nextId("mass");
    const answer = this.requests.expect(id, "mass cancel");
    this.session!.send("q", {
      ClOrdID: id,
      MassCancelRequestType: symbol ? "1" : "7",
      ...(symbol ? { Instrument: { Symbol: symbol } } : {}),
      TransactTime: new Date(),
    });
    const [report] = await answer;
    if (String(report!.MassCancelResponse) === "0")
      throw new VenueError("rejected", `mass cancel refused: ${String(report!.Text ?? "")}`);
    // The report counts; the orders' own Canceled reports confirm each (they may come later).
    const affected = Number(report!.TotalAffectedOrders ?? 0);
    // Orders not yet acknowledged count too: sent before the mass cancel on the same session,
    // the venue took them first and cancelled them with the rest.
    const open = this.ledger.open(symbol);
    await Promise.all(
      open.map((s) =>
        this.ledger
          .waitFor(s.clientId, (x) => TERMINAL_STATES.has(x.state), this.o.deadlineMs, "cancel")
          .catch(() => this.status(s.clientId)),
      ),
    );
    return affected;
  }

  async status(clientId: string): Promise<VenueOrderStatus> {
    this.mustBeConnected();
    const known = this.ledger.get(clientId);
    const id = this.nextId("st");
    const answer = this.requests.expect(id, `status of ${clientId}`);
    this.session!.send("H", {
      ClOrdID: clientId,
      OrdStatusReqID: id,
      Instrument: { Symbol: known?.symbol ?? "" },
      Side: fixSide(known?.side ?? "buy"),
    });
    const [report] = await answer;
    const applied = this.ledger.apply(ledgerReport(report!, this.cancelIds));
    if (applied) return applied;
    throw new VenueError("rejected", String(report!.Text ?? `the venue has no order ${clientId}`));
  }

  async openOrders(symbol?: string): Promise<VenueOrderStatus[]> {
    this.mustBeConnected();
    const id = this.nextId("ms");
    const answer = this.requests.expect(id, "mass status");
    this.session!.send("AF", {
      MassStatusReqID: id,
      MassStatusReqType: symbol ? 1 : 7,
      ...(symbol ? { Instrument: { Symbol: symbol } } : {}),
    });
    const reports = await answer;
    const out: VenueOrderStatus[] = [];
    for (const r of reports) {
      if (r.OrderID === "NONE") continue; // "no open orders"
      const applied = this.ledger.apply(ledgerReport(r, this.cancelIds));
      if (applied) out.push(applied);
    }
    return out;
  }

  /** RequestForPositions (AN): the venue's net position per symbol, from its PositionReports. */
  async positions(): Promise<VenuePosition[]> {
    this.mustBeConnected();
    const id = this.nextId("pos");
    const answer = this.requests.expect(id, "positions");
    this.session!.send("AN", {
      PosReqID: id,
      PosReqType: 0,
      Account: this.o.username,
      AccountType: 1,
      ClearingBusinessDate: new Date(),
      TransactTime: new Date(),
    });
    return (await answer).map((r) => {
      const qty = ((r.PositionQty as ILooseObject[] | undefined) ?? []).reduce(
        (net, q) => net + Number(q.LongQty ?? 0) - Number(q.ShortQty ?? 0),
        0,
      );
      const symbol = String((r.Instrument as ILooseObject | undefined)?.Symbol ?? "");
      return { symbol, units: qty, source: "venue" as const };
    });
  }

  balances(): Promise<VenueBalance[]> {
    return Promise.reject(
      new VenueError(
        "unsupported",
        "the fix venue does not ask for balances (no CollateralInquiry)",
      ),
    );
  }

  async subscribe(symbol: string, onTrade: (t: VenueTrade) => void): Promise<() => Promise<void>> {
    this.mustBeConnected();
    const id = this.nextId("md");
    const snapshot = this.requests.expect(id, `market data of ${symbol}`);
    this.trades.set(id, onTrade);
    this.session!.send("V", {
      MDReqID: id,
      SubscriptionRequestType: "1",
      MarketDepth: 1,
      MDReqGrp: [{ MDEntryType: "2" }],
      InstrmtMDReqGrp: [{ Instrument: { Symbol: symbol } }],
    });
    try {
      await snapshot;
    } catch (e) {
      this.trades.delete(id);
      throw e;
    }
    return async () => {
      if (!this.trades.delete(id) || this.state.state !== "connected") return;
      this.session!.send("V", {
        MDReqID: id,
        SubscriptionRequestType: "2",
        MarketDepth: 1,
        MDReqGrp: [{ MDEntryType: "2" }],
        InstrmtMDReqGrp: [{ Instrument: { Symbol: symbol } }],
      });
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    const s = this.session;
    this.session = null;
    this.generation++;
    this.requests.failAll(new VenueError("disconnected", "the adapter closed"));
    // A Logout when the session is up (its answer awaited no longer than a request's), else cut.
    if (s) await s.stop(this.state.state === "connected" ? this.o.deadlineMs : 0);
    this.setHealth("closed");
  }

  // --- the session ---

  private async logOn(): Promise<void> {
    const resuming = this.ledger.open().length > 0;
    const generation = ++this.generation;
    this.setHealth("connecting");
    let settle!: { ok: () => void; fail: (e: Error) => void };
    const loggedOn = new Promise<void>((ok, fail) => (settle = { ok, fail }));
    const session = await startInitiator(
      {
        host: this.o.host,
        port: this.o.port,
        senderCompId: this.o.senderCompId,
        targetCompId: this.o.targetCompId,
        username: this.o.username,
        password: this.o.password,
        heartbeatSeconds: this.o.heartbeatSeconds,
      },
      {
        ready: () => {
          if (generation === this.generation) settle.ok();
        },
        message: (t, b) => {
          if (generation === this.generation) this.onMessage(t, b);
        },
        stopped: (error, logout) => {
          if (generation !== this.generation) return;
          this.generation++;
          this.session = null;
          const why = logout || error?.message || "the venue ended the session";
          settle.fail(
            logout !== null
              ? new VenueError("auth", `the venue refused the logon: ${why}`)
              : new VenueError("disconnected", `no session: ${why}`),
          );
          this.lost(error, logout);
        },
      },
    );
    this.session = session;
    const timer = setTimeout(() => {
      if (generation !== this.generation) return;
      settle.fail(new VenueError("timeout", `no Logon answer within ${this.o.logonTimeoutMs} ms`));
      this.generation++;
      this.session = null;
      void session.stop();
      this.setHealth("frozen", "the venue did not answer the Logon");
    }, this.o.logonTimeoutMs);
    try {
      await loggedOn;
    } finally {
      clearTimeout(timer);
    }
    this.setHealth("connected");
    if (resuming) await this.resync();
  }

  /**
   * After a reconnect: every order not known to be finished is unknown until the venue says.
   * Mass status names the open ones; each other one is asked for by itself (it may have filled
   * or been cancelled while the session was down, and its fills are booked from the answer).
   */
  private async resync(): Promise<void> {
    const unknown = this.ledger.markUnknown();
    // An order whose state the venue does not give back stays unknown (and counts as open): a
    // caller never takes a missing answer for "gone".
    await this.openOrders().catch(() => undefined);
    for (const id of unknown)
      if (this.ledger.get(id)?.state === "unknown") await this.status(id).catch(() => undefined);
  }

  private lost(error: Error | null, logout: string | null): void {
    this.requests.failAll(new VenueError("disconnected", "the session with the venue ended"));
    if (this.closed) return;
    const message = error?.message ?? "";
    if (/not responding/.test(message))
      return this.setHealth("frozen", `the venue stopped answering: ${message}`);
    if (logout !== null && this.state.state === "connecting")
      return this.setHealth("failed", `the venue refused the logon: ${logout || "no reason"}`);
    if (this.state.state === "connecting")
      return this.setHealth("disconnected", message || "the venue ended the session");
    this.ledger.markUnknown();
    this.setHealth("disconnected", message || logout || "the venue ended the session");
    void this.reconnect();
  }

  private async reconnect(): Promise<void> {
    for (let attempt = 1; attempt <= this.o.reconnectAttempts && !this.closed; attempt++) {
      await new Promise((r) => setTimeout(r, this.o.reconnectDelayMs * attempt));
      if (this.closed || this.state.state === "connected") return;
      try {
        return await this.connect();
      } catch (e) {
        if (e instanceof VenueError && e.kind === "auth") return;
        if (this.state.state === "frozen") return;
      }
    }
  }

  private onMessage(msgType: string, body: ILooseObject): void {
    switch (msgType) {
      case "8":
        return this.onExecutionReport(body);
      case "9":
        return this.requests.answer(String(body.ClOrdID ?? ""), body);
      case "r":
        return this.requests.answer(String(body.ClOrdID ?? ""), body);
      case "W":
        return this.requests.answer(String(body.MDReqID ?? ""), body);
      case "Y":
        return this.requests.refuse(
          String(body.MDReqID ?? ""),
          `the venue refused the market data request: ${String(body.Text ?? "")}`,
        );
      case "X":
        return this.onTrades(body);
      case "AO":
        return this.onPositionsAck(body);
      case "AP":
        return this.onPositionReport(body);
    }
  }

  private onExecutionReport(body: ILooseObject): void {
    const reqId = body.OrdStatusReqID ?? body.MassStatusReqID;
    if (body.ExecType === "I" && reqId !== undefined && this.requests.has(String(reqId))) {
      if (body.MassStatusReqID === undefined) return this.requests.answer(String(reqId), body);
      return this.requests.collect(String(reqId), body, body.LastRptRequested === true);
    }
    this.ledger.apply(ledgerReport(body, this.cancelIds));
  }

  private onPositionsAck(body: ILooseObject): void {
    const id = String(body.PosReqID ?? "");
    const result = Number(body.PosReqResult);
    if (result !== 0 && result !== 2)
      return this.requests.refuse(
        id,
        `the venue refused the position request: ${String(body.Text ?? result)}`,
      );
    this.requests.expectCount(id, Number(body.TotalNumPosReports ?? 0));
  }

  private onPositionReport(body: ILooseObject): void {
    this.requests.collect(String(body.PosReqID ?? ""), body, false);
  }

  private onTrades(body: ILooseObject): void {
    const listener = this.trades.get(String(body.MDReqID ?? ""));
    if (!listener) return;
    for (const e of (body.MDIncGrp as ILooseObject[] | undefined) ?? []) {
      if (e.MDEntryType !== "2") continue;
      listener({
        symbol: String((e.Instrument as ILooseObject | undefined)?.Symbol ?? ""),
        price: Number(e.MDEntryPx),
        units: Number(e.MDEntrySize),
        time: e.MDEntryTime instanceof Date ? e.MDEntryTime : new Date(),
      });
    }
  }

  private mustBeConnected(): void {
    const s = this.state;
    if (s.state === "connected" && this.session) return;
    const kind = s.state === "frozen" ? "frozen" : "disconnected";
    throw new VenueError(kind, `the fix venue is ${s.state}${s.reason ? `: ${s.reason}` : ""}`);
  }

  private nextId(prefix: string): string {
    return `${prefix}-${++this.seq}-${randomUUID().slice(0, 8)}`;
  }

  private setHealth(state: VenueHealth["state"], reason?: string): void {
    this.state = { state, since: new Date(), ...(reason ? { reason } : {}) };
    for (const l of this.listeners) l(this.health);
  }
}
