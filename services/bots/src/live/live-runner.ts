import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { LicenseGate } from "@svc/lib/license";
import { namingSymbol } from "../engine/symbol-events.js";
import type { Costs } from "../execution/costs.js";
import type { KernelOrder } from "../execution/kernel/strategy-host.js";
import type { VenueReport } from "../execution/kernel/venue.js";
import { OrderPipeline } from "../execution/order-pipeline.js";
import { SimulatedBroker } from "../execution/simulated-broker.js";
import type { Sizing } from "../execution/sizing.js";
import { PipelineVenue, type LedgerVenue } from "../execution/venues/pipeline-venue.js";
import type { HaltMode } from "../runner/bot-runner.js";
import type { RunnerEvent } from "../runner/events.js";
import type { BotsDatabase } from "../store/bots.table.js";
import { appendEvents, listEvents, type LeaseFence } from "../store/events.repository.js";
import { BarBuilder, type LiveBar } from "./bar-builder.js";
import { bookFromEvents } from "./events-book.js";
import {
  ReconciliationFailed,
  reconcileAtStart,
  resumeLedger,
  type Reconciliation,
} from "./reconcile.js";
import { haltAtVenue, type VenueHalt } from "./venue-halt.js";
import { auditWorkloadRun } from "./workload-audit.js";

export type LiveMode = "paper" | "live";
export type { LiveBar };

/** What a strategy wants at a bar's close: a target (fraction of equity) and/or explicit orders. */
export interface LiveDecision {
  target?: number;
  orders?: KernelOrder[];
}
export type LiveStrategy = (bar: LiveBar) => LiveDecision | undefined;

export interface LiveRunnerOptions {
  /** `paper`: the venue's live trades, fills simulated; `live`: orders to the venue. */
  mode: LiveMode;
  bot: { id: string; slug: string; specHash: string; strategyDigest?: string };
  taskId: string;
  approvedPromotion: string;
  /** Verifies the token against the bot and its digests (assertApprovedPromotion). */
  verifyPromotion: (
    token: string,
    bot: { id: string; specHash: string; strategyDigest?: string },
  ) => Promise<{ requestId: string; version: number }>;
  /** Live needs its `live_trading` feature where enforcement is on. */
  license?: LicenseGate;
  /**
   * Builds the venue's adapter with the report its records go to (order_placed, order_filled,
   * ...): a live runner writes them as the bot's events; a paper runner's adapter only brings data.
   */
  venue: (report: VenueReport) => LedgerVenue;
  db: Kysely<BotsDatabase>;
  schema: string;
  /** The session's lease: events are refused once another host holds it. */
  fence?: LeaseFence;
  /**
   * Whether the lease is still known to be held (renewed recently enough that nobody else can
   * have claimed it): checked before every decision, so a runner paused past its lease and
   * resumed sends nothing before it learns the lease moved.
   */
  mayTrade?: () => boolean;
  symbol: string;
  strategy: LiveStrategy;
  costs: Costs & Sizing;
  /** Cash of a bot with no events yet. */
  initialCash: number;
  /** A bar closes every `barMs` of venue trades (none traded: no bar). */
  barMs: number;
  /** How often the venue's open orders are compared with the ledger (0: never). */
  reconcileEveryMs?: number;
}

export type LivePhase = "Starting" | "Running" | "Draining" | "Stopped";

/** A start the runner refused: nothing was sent to the venue. */
export class LiveStartRefused extends Error {
  constructor(
    readonly code:
      | "approved_promotion_required"
      | "license_invalid"
      | "venue_unavailable"
      | "reconciliation_failed",
    message: string,
  ) {
    super(message);
    this.name = "LiveStartRefused";
  }
}

const why = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * Runs one deployment against a venue. At start it verifies the ApprovedPromotion token (bot,
 * version hash, strategy digest), for `live` the license, then connects and, for `live`,
 * reconciles the venue's open orders and positions with the bot's events before anything is
 * sent (reconcile.ts: fail closed). Bars are built from the venue's trades; at each close the
 * strategy's decision goes through the order pipeline to the venue (live) or to a simulated
 * broker filling at the next bar's open (paper). While it runs, the venue's open orders are
 * compared with the ledger every `reconcileEveryMs`, so a fill missed while disconnected is
 * booked. `halt` applies a kill switch mode at the venue and reports what the venue confirmed.
 * Every start and stop, done or refused, writes a `workload_run` audit entry.
 */
export class LiveRunner {
  phase: LivePhase = "Starting";
  /** Why the runner sends nothing now (the venue hung or refused the logon), or undefined. */
  frozen: string | undefined;
  reconciliation: Reconciliation | undefined;
  lastHalt: VenueHalt | undefined;
  private readonly idPrefix: string;
  /**
   * This start's own tag in its order ids: a deployment's restarts (and a runner that took its
   * lease over) run under one task id, and must never send an id an earlier run sent.
   */
  private readonly runTag = randomUUID().slice(0, 8);
  private pipeline: OrderPipeline;
  private readonly venue: LedgerVenue;
  private readonly pipelineVenue: PipelineVenue | undefined;
  private broker: SimulatedBroker | undefined;
  private readonly bars: BarBuilder;
  private pending: RunnerEvent[] = [];
  /** Reconciliation's events wait for its verdict: a start that fails closed writes none. */
  private holding = true;
  private writing: Promise<void> = Promise.resolve();
  private writeError: Error | undefined;
  private readonly record: (e: RunnerEvent) => void;
  private unsubscribe: (() => Promise<void>) | undefined;
  private timers: NodeJS.Timeout[] = [];
  private unwatch: (() => void) | undefined;
  private barIndex = 0;
  private lastClose = NaN;
  private promotion: { requestId: string; version: number } | undefined;
  private started = false;

  constructor(private readonly o: LiveRunnerOptions) {
    this.idPrefix = `${o.bot.id.slice(0, 8)}.`;
    this.record = namingSymbol<RunnerEvent>(o.symbol, (e) => this.push(e));
    this.bars = new BarBuilder(o.barMs, (bar) => this.onBar(bar));
    const emit = (e: RunnerEvent) => this.record(e);
    this.venue = o.venue(o.mode === "live" ? { event: emit } : {});
    if (o.mode === "live") {
      this.pipelineVenue = new PipelineVenue(o.symbol, this.venue, {
        idPrefix: `${this.idPrefix}${this.runTag}.`,
        onError: (err, id) =>
          this.push({
            type: "fail_safe",
            data: { frozen: this.frozen !== undefined, reason: `order ${id}: ${why(err)}` },
          }),
      });
      this.pipeline = new OrderPipeline(this.pipelineVenue, o.costs, [], emit);
    } else {
      // Replaced at start by the account the bot's events hold.
      this.broker = new SimulatedBroker(o.symbol, { cash: o.initialCash, units: 0 }, o.costs, {
        event: emit,
      });
      this.pipeline = new OrderPipeline(this.broker, o.costs, [], emit);
    }
  }

  get position(): number {
    return this.o.mode === "live" ? this.venue.ledger.position(this.o.symbol) : this.broker!.units;
  }

  async start(): Promise<void> {
    const o = this.o;
    const refuse = async (
      code: LiveStartRefused["code"],
      message: string,
      outcome: "denied" | "failed",
    ) => {
      await this.audit("start", outcome, { error: code, message });
      this.phase = "Stopped";
      return new LiveStartRefused(code, message);
    };
    try {
      this.promotion = await o.verifyPromotion(o.approvedPromotion, o.bot);
    } catch (e) {
      throw await refuse("approved_promotion_required", why(e), "denied");
    }
    if (o.mode === "live" && o.license?.enforced) {
      const verdict = o.license.admits("live_trading");
      if (!verdict.admitted)
        throw await refuse(
          "license_invalid",
          `live trading needs the license's live_trading feature: ${verdict.reason ?? verdict.standing.state}`,
          "denied",
        );
    }
    const events = await listEvents(o.db, o.bot.id, 0, 1_000_000);
    const book = bookFromEvents(events, o.symbol);
    if (!events.some((e) => e.type === "session_started")) book.cash = o.initialCash;
    if (o.mode === "live") resumeLedger(this.venue, book);
    else this.replaceBroker(book.cash, book.positions[o.symbol] ?? 0);
    try {
      await this.venue.connect();
    } catch (e) {
      await this.venue.close().catch(() => undefined);
      throw await refuse(
        "venue_unavailable",
        `the venue refused or did not answer: ${why(e)}`,
        "failed",
      );
    }
    if (o.mode === "live") {
      try {
        this.reconciliation = await reconcileAtStart(this.venue, book, {
          symbols: [o.symbol],
          idPrefix: this.idPrefix,
        });
      } catch (e) {
        this.pending = [];
        await this.venue.close().catch(() => undefined);
        const reasons = e instanceof ReconciliationFailed ? e.reasons : [why(e)];
        throw await refuse("reconciliation_failed", reasons.join("; "), "failed");
      }
    }
    this.holding = false;
    // The session's start first, then what reconciliation booked (missed fills, adopted orders).
    this.pending.unshift(
      {
        type: "session_started",
        data: {
          task_id: o.taskId,
          version: this.promotion.version,
          symbol: o.symbol,
          initial_cash: o.initialCash,
          data_source: `venue:${this.venue.name}:${o.mode}`,
        },
      },
      { type: "phase_changed", data: { phase: "Running", reason: `${o.mode} start` } },
    );
    await this.flush();
    this.unwatch = this.venue.onHealth((h) => {
      if (h.state === "frozen" || h.state === "failed")
        this.freeze(`the venue is ${h.state}: ${h.reason ?? ""}`);
    });
    this.unsubscribe = await this.venue.subscribe(o.symbol, (t) => this.bars.trade(t));
    this.timers.push(setInterval(() => this.bars.close(Date.now()), o.barMs));
    if (o.mode === "live" && (o.reconcileEveryMs ?? 0) > 0)
      this.timers.push(
        setInterval(() => void this.reconcileNow().catch(() => undefined), o.reconcileEveryMs),
      );
    this.phase = "Running";
    this.started = true;
    await this.audit("start", "succeeded", {
      request_id: this.promotion.requestId,
      version: this.promotion.version,
      reconciliation: this.reconciliation
        ? {
            working: this.reconciliation.working.length,
            settled: this.reconciliation.settled.length,
            adopted: this.reconciliation.adopted.length,
          }
        : null,
    });
  }

  /**
   * Continuous reconciliation: the venue's open orders, and a status request for each order the
   * ledger holds open that the venue did not list (a fill missed while disconnected is booked).
   */
  async reconcileNow(): Promise<{ asked: number }> {
    const v = this.venue;
    if (this.o.mode !== "live" || v.health.state !== "connected") return { asked: 0 };
    const listed = new Set((await v.openOrders(this.o.symbol)).map((s) => s.clientId));
    let asked = 0;
    for (const s of v.ledger.open(this.o.symbol))
      if (!listed.has(s.clientId)) {
        asked++;
        await v.status(s.clientId).catch(() => undefined);
      }
    await this.flush();
    return { asked };
  }

  /**
   * The kill switch: the runner stops deciding at once (Draining), waits for its requests in
   * flight, applies `mode` at the venue, and is Stopped only once the venue confirmed it (else it
   * stays Draining, and the `halted` record says what is not confirmed).
   */
  async halt(mode: HaltMode, reason: string): Promise<VenueHalt> {
    if (this.phase === "Stopped" && this.lastHalt) return this.lastHalt;
    this.phase = "Draining";
    this.push({ type: "phase_changed", data: { phase: "Draining", reason } });
    await this.pipelineVenue?.settled();
    let h: VenueHalt;
    if (this.o.mode === "live")
      h = await haltAtVenue(this.venue, mode, this.o.symbol, { idPrefix: this.idPrefix });
    else h = this.haltPaper(mode);
    this.lastHalt = h;
    this.push({
      type: "halted",
      data: {
        reason,
        venue: {
          mode,
          cancelled: h.cancelled,
          open_at_venue: Number.isNaN(h.openAtVenue) ? null : h.openAtVenue,
          position_at_venue: h.positionAtVenue ?? null,
          closing_orders: h.closingOrders,
          confirmed: h.confirmed,
          problems: h.problems,
        },
      },
    });
    if (h.confirmed) {
      this.phase = "Stopped";
      this.push({
        type: "phase_changed",
        data: { phase: "Stopped", reason: `${mode}: confirmed by the venue` },
      });
    }
    await this.flush();
    return h;
  }

  /** Ends the workload: no more bars, the venue session closed, a workload_run stop entry. */
  async stop(reason: string): Promise<void> {
    // A start that was refused has nothing to stop: its refusal was audited already.
    if (!this.started) return;
    this.started = false;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.unwatch?.();
    await this.unsubscribe?.().catch(() => undefined);
    await this.pipelineVenue?.settled();
    if (this.phase !== "Stopped") {
      this.phase = "Stopped";
      this.push({ type: "phase_changed", data: { phase: "Stopped", reason } });
    }
    await this.flush();
    await this.venue.close().catch(() => undefined);
    await this.audit("stop", "succeeded", {
      reason,
      halt: this.lastHalt ? { mode: this.lastHalt.mode, confirmed: this.lastHalt.confirmed } : null,
      position: this.position,
    });
  }

  /**
   * The lease moved to another runner: stops at once and writes nothing more (the new holder
   * writes the deployment's events from now on); the venue session is closed, orders untouched.
   */
  async abandon(): Promise<void> {
    this.holding = true;
    this.pending = [];
    this.frozen ??= "the session's lease moved to another runner";
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    this.unwatch?.();
    this.started = false;
    this.phase = "Stopped";
    await this.unsubscribe?.().catch(() => undefined);
    await this.venue.close().catch(() => undefined);
  }

  /** Resolves once every event recorded so far is in bot_events (rejects if a write failed). */
  async flush(): Promise<void> {
    if (!this.holding && this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      this.writing = this.writing.then(() =>
        appendEvents(this.o.db, this.o.bot.id, this.o.taskId, batch, this.o.fence).catch(
          (e: Error) => {
            this.writeError = e;
            this.freeze(`events could not be written: ${e.message}`);
          },
        ),
      );
    }
    await this.writing;
    if (this.writeError) throw this.writeError;
  }

  private onBar(bar: LiveBar): void {
    if (this.phase !== "Running") return;
    const i = this.barIndex++;
    this.push({
      type: "bar_received",
      data: {
        index: i,
        time: bar.time,
        open: bar.open,
        high: bar.high,
        low: bar.low,
        close: bar.close,
        volume: bar.volume,
      },
    });
    // Paper: what the last close sent fills at this bar's open.
    this.broker?.onBar(bar.open, bar.high, bar.low, bar.volume);
    const reference = this.lastClose;
    this.lastClose = bar.close;
    if (this.frozen !== undefined || this.venue.health.state !== "connected") return;
    if (this.o.mayTrade && !this.o.mayTrade()) return;
    const d = this.o.strategy(bar);
    if (d?.target !== undefined) this.pipeline.decide(d.target, bar.close, bar.time, reference);
    for (const order of d?.orders ?? []) this.pipeline.send(order, bar.close, bar.time, reference);
    void this.flush().catch(() => undefined);
  }

  private haltPaper(mode: HaltMode): VenueHalt {
    const b = this.broker!;
    if (mode !== "freeze") b.cancelAll("kill switch");
    if (mode === "flatten" && b.units !== 0 && Number.isFinite(this.lastClose))
      b.flattenAt(this.lastClose);
    return {
      mode,
      cancelled: 0,
      openAtVenue: b.openOrders.length,
      positionAtVenue: b.units,
      closingOrders: 0,
      confirmed: true,
      problems: [],
    };
  }

  private freeze(reason: string): void {
    if (this.frozen !== undefined) return;
    this.frozen = reason;
    this.push({ type: "fail_safe", data: { frozen: true, reason } });
    void this.flush().catch(() => undefined);
  }

  private push(e: RunnerEvent): void {
    this.pending.push(e);
    if (!this.holding) queueMicrotask(() => void this.flush().catch(() => undefined));
  }

  private replaceBroker(cash: number, units: number): void {
    const emit = (e: RunnerEvent) => this.record(e);
    this.broker = new SimulatedBroker(
      this.o.symbol,
      { cash, units, idPrefix: `${this.runTag}.` },
      this.o.costs,
      { event: emit },
    );
    this.pipeline = new OrderPipeline(this.broker, this.o.costs, [], emit);
  }

  private audit(
    op: "start" | "stop",
    outcome: "succeeded" | "denied" | "failed",
    details: Record<string, unknown>,
  ) {
    return auditWorkloadRun(this.o.db, this.o.schema, {
      op,
      mode: this.o.mode,
      outcome,
      taskId: this.o.taskId,
      bot: this.o.bot,
      ...(this.promotion ? { version: this.promotion.version } : {}),
      details: {
        mode: this.o.mode,
        venue: this.venue.name,
        ...(details as Record<string, never>),
      },
    });
  }
}
