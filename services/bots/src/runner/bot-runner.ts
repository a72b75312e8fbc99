import type { Bars } from "../engine/bars.js";
import type { Strategy } from "../engine/strategies/strategy.js";
import type { Costs } from "../execution/costs.js";
import { orderPathDuration } from "@svc/lib/telemetry";
import {
  BuiltInHost,
  createKernel,
  type AsyncStrategyHost,
  type ExecutionKernel,
} from "../execution/kernel/index.js";
import type { PreTradeCheck } from "../execution/pre-trade.js";
import { reduceOnlyWhile } from "../execution/reduce-only.js";
import type { Account } from "../execution/simulated-broker.js";
import type { Sizing } from "../execution/sizing.js";
import type {
  DisabledBy,
  FleetFigures,
  RiskGuard,
  RiskLimits,
} from "../execution/risk-controls/index.js";
import { namingSymbol } from "../engine/symbol-events.js";
import type { Phase, RunnerEvent } from "./events.js";
import { BarPacer, TradingGate, type KillSwitchGate } from "./trading-gate.js";

export type HaltMode = "cancel" | "flatten" | "freeze";

/** A sandboxed strategy's state after a bar, as a paper session keeps it to resume from. */
export interface StrategyState {
  /** The bar (index in the session's data) the state is as of. */
  bar: number;
  /** The target the position followed then (the order pipeline's). */
  target: number | null;
  /** The host's own snapshot (AsyncStrategyHost.snapshot). */
  host: unknown;
}

/** A session's risk controls, as BotRunner and PortfolioRunner take them. */
export interface SessionRisk {
  limits: RiskLimits;
  /** The capital the session started with (its credit threshold's zero). */
  startEquity: number;
  /** The rest of the fleet's figures, and where this session's own go after every bar. */
  fleet?: { others(): FleetFigures; report(own: FleetFigures): void };
  /** A throttle breach no one re-enabled yet: the session starts disabled. */
  disabled?: DisabledBy;
}

export interface RunnerOptions {
  symbol: string;
  bars: Bars;
  /** Index of the first bar to trade (a resumed session continues where it stopped). */
  startIndex: number;
  /**
   * Bars per second; 0, or more than a timer can pace (over 1000), runs at full speed: as fast
   * as the sink takes events.
   */
  speed: number;
  /** A built-in family's strategy; or `host`, a strategy that answers asynchronously. */
  strategy?: Strategy;
  /**
   * A sandboxed strategy (strategy code). A resumed one was started from its snapshot, so it does
   * not relearn; `resumeTarget` is the target its position followed when the snapshot was taken.
   */
  host?: AsyncStrategyHost;
  resumeTarget?: number;
  costs: Costs & Sizing;
  broker: Account;
  /** Pre-trade checks on every order (none by default). */
  checks?: readonly PreTradeCheck[];
  /** The bot's risk limits: the risk controls run on every order when any is set. */
  risk?: SessionRisk;
  /**
   * Why the session may only reduce its position now (a lapsed license), or undefined while it
   * trades freely; asked at every bar, and each change is recorded as a reduce_only event.
   */
  reduceOnly?: () => string | undefined;
  /**
   * Persists a batch of events in order (bot_events); the runner waits for it. With a host that
   * snapshots, `strategyState` is its state after the batch's last bar, kept with the batch.
   */
  sink: (events: RunnerEvent[], strategyState?: StrategyState) => Promise<void>;
  /**
   * The kill-switch gate of the runner's keys (its watcher's `engagedSince`): asked before every
   * bar, so a broadcast stops the runner the moment its process hears it, before the watcher's
   * `onEngage` gets to this runner among thousands and calls `halt`.
   */
  killSwitch?: KillSwitchGate;
}

/**
 * Runs one bot session (paper, and live with a real broker behind the same seam): one bar at a
 * time, it records the bar and takes the execution kernel's bar step a backtest takes (the venue
 * fills at the open, the strategy decides at the close, its target goes through sizing, the
 * pre-trade checks and the venue), so a paper session and a backtest over the same bars place
 * the same orders. Its phase is Running ->
 * Draining -> Stopped; `halt` applies a mode (cancel open orders; flatten: cancel and close;
 * freeze: no new orders, positions kept).
 * The kill-switch watcher drives `halt` and `release`.
 */
export class BotRunner {
  private ownPhase: Phase = "Running";
  /** When it stopped starting bars: a halt, or a kill-switch broadcast. */
  private readonly gate: TradingGate;
  private readonly pacer = new BarPacer();
  private readonly kernel: ExecutionKernel;
  private pending: RunnerEvent[] = [];
  private frozen = false;
  private index: number;
  private lastClose = NaN;
  private reduceOnlyReason: string | undefined;
  private done: Promise<"finished" | "stopped">;
  private readonly guard: RiskGuard | undefined;

  constructor(private readonly o: RunnerOptions) {
    this.gate = new TradingGate(o.killSwitch);
    const record = namingSymbol<RunnerEvent>(o.symbol, (e) => this.pending.push(e));
    const risk = o.risk;
    const fleet = risk?.fleet;
    this.kernel = createKernel({
      symbol: o.symbol,
      account: o.broker,
      costs: o.costs,
      onEvent: record,
      ...(risk
        ? {
            risk: {
              limits: risk.limits,
              startEquity: risk.startEquity,
              ...(fleet ? { fleet: () => fleet.others() } : {}),
              ...(risk.disabled ? { disabled: risk.disabled } : {}),
            },
          }
        : {}),
      ...(o.checks ? { checksBefore: o.checks } : {}),
      ...(o.reduceOnly ? { checksAfter: [reduceOnlyWhile(() => this.reduceOnlyReason)] } : {}),
      host: o.host ?? new BuiltInHost(o.strategy!),
    });
    this.guard = this.kernel.guard;
    this.index = o.startIndex;
    // A resumed session's built-in strategy relearns its indicators from the bars it already
    // saw; a sandboxed one was started from its snapshot instead, and follows its target.
    if (o.startIndex > 0) {
      if (!o.host) this.kernel.relearn(o.bars, o.startIndex);
      else if (o.resumeTarget !== undefined) this.kernel.pipeline.resumeAt(o.resumeTarget);
      this.lastClose = o.bars.close[o.startIndex - 1]!;
    }
    this.done = this.loop();
  }

  /**
   * Running until a halt or a kill-switch broadcast (the gate) stops it: Draining from that
   * instant (no bar is started, nothing ordered or filled), Stopped once the halt is done.
   */
  get phase(): Phase {
    if (this.ownPhase === "Running" && this.gate.closed()) return "Draining";
    return this.ownPhase;
  }

  set phase(phase: Phase) {
    this.ownPhase = phase;
    // Stopped from outside (a shutdown hands the session over, a lost lease abandons it): a
    // sandboxed strategy's call in flight is not waited for either.
    if (phase === "Stopped") this.interrupt?.();
  }

  /** When the runner stopped starting bars (performance.now()), or NaN while it trades. */
  get drainingSince(): number {
    return this.gate.since;
  }

  /** Resolves when the session ends: out of bars, or stopped. */
  finished(): Promise<"finished" | "stopped"> {
    return this.done;
  }

  get position(): number {
    return this.kernel.venue.units;
  }

  private async loop(): Promise<"finished" | "stopped"> {
    try {
      const how = await this.bars();
      if (how === "finished" && this.o.host) {
        // onStop's lines are the run's too.
        await this.kernel.stop();
        this.stopped = true;
        this.noteLogs(true);
        await this.flush();
      }
      return how;
    } catch (err) {
      // A strategy that failed (its sandbox timed out, ran out of memory, threw): the bar's
      // events so far are kept, and the session ends failed with its error.
      this.noteLogs(true);
      await this.flush().catch(() => undefined);
      throw err;
    } finally {
      if (this.aborted) this.o.host?.abort?.();
      else if (!this.stopped)
        await Promise.resolve(this.kernel.stop()).catch(() => this.o.host?.abort?.());
    }
  }

  private stopped = false;

  /** Set by a halt while a sandboxed strategy's call is in flight: the loop stops waiting for it. */
  private interrupt: (() => void) | null = null;
  private aborted = false;

  /**
   * Asks a sandboxed strategy about bar i, unless a halt comes first: then its process is ended
   * (the call's answer no longer matters) and undefined is answered.
   */
  private async askAsync(i: number): Promise<number | undefined> {
    const asking = this.kernel.askAsync(this.o.bars, i, i + 1);
    const halted = new Promise<undefined>((resolve) => {
      this.interrupt = () => resolve(undefined);
    });
    try {
      const d = await Promise.race([asking, halted]);
      if (d === undefined) {
        this.aborted = true;
        asking.catch(() => undefined);
        this.o.host!.abort?.();
      }
      return d;
    } finally {
      this.interrupt = null;
    }
  }

  private async bars(): Promise<"finished" | "stopped"> {
    const { bars } = this.o;
    while (this.index < bars.length) {
      if (this.phase !== "Running") return "stopped";
      const i = this.index++;
      this.pending.push({
        type: "bar_received",
        data: {
          index: i,
          time: bars.time[i]!,
          open: bars.open[i]!,
          high: bars.high[i]!,
          low: bars.low[i]!,
          close: bars.close[i]!,
          volume: bars.volume[i]!,
        },
      });
      const kernel = this.kernel;
      kernel.open(bars, i);
      const close = bars.close[i]!;
      const reference = this.lastClose;
      this.lastClose = close;
      let decided: boolean;
      if (!this.o.host) decided = kernel.ask(bars, i, i + 1) === i;
      else {
        const d = await this.askAsync(i);
        if (d === undefined) {
          // Halted while the strategy thought: the bar is not the strategy's yet, so a resumed
          // session (its state as of the bar before) shows it the bar again.
          this.pending = this.pending.filter(
            (e) => !(e.type === "bar_received" && e.data.index === i),
          );
          return "stopped";
        }
        decided = d === i;
        this.noteLogs(false);
      }
      this.noteReduceOnly();
      const moving = !this.frozen && decided;
      const decidedAt = moving ? performance.now() : 0;
      if (moving) kernel.act(close, bars.time[i]!, reference);
      else kernel.drop();
      this.reportToFleet(close);
      await this.flush(this.o.host?.snapshot ? i : undefined);
      if (moving) orderPathDuration.observe((performance.now() - decidedAt) / 1000);
      await this.pace();
    }
    return "finished";
  }

  /** This session's share of its fleet's figures, as of the bar's close. */
  private reportToFleet(close: number): void {
    const risk = this.o.risk;
    if (!risk?.fleet) return;
    const equity = this.kernel.venue.cash + this.kernel.venue.units * close;
    risk.fleet.report({
      exposure: Math.abs(this.kernel.venue.units) * close,
      loss: risk.startEquity - equity,
    });
  }

  /** Why the risk controls refuse every order now (a throttle breach), if they do. */
  get riskDisabled(): DisabledBy | undefined {
    return this.guard?.disabled;
  }

  /**
   * A named person re-enabled the bot (RTS 6 Art. 15(3)): the controls judge orders again from
   * the next bar, and the history says who and why.
   */
  reEnableRisk(by: string, reason: string): void {
    if (!this.guard?.disabled) return;
    this.guard.reEnable();
    this.pending.push({ type: "risk_re_enabled", data: { by, reason } });
  }

  /** Asks once per bar, so every order of a decision is judged alike, and records each change. */
  private noteReduceOnly(): void {
    if (!this.o.reduceOnly) return;
    const why = this.o.reduceOnly();
    if (why === this.reduceOnlyReason) return;
    const was = this.reduceOnlyReason;
    this.reduceOnlyReason = why;
    this.pending.push({
      type: "reduce_only",
      data:
        why === undefined
          ? { on: false, reason: `lifted: orders adding exposure are accepted again (was: ${was})` }
          : { on: true, reason: why },
    });
  }

  /** Sends the pending events; with `bar`, the strategy's state as of that bar goes with them. */
  private async flush(bar?: number): Promise<void> {
    if (this.pending.length === 0) return;
    const state =
      bar === undefined
        ? undefined
        : {
            bar,
            target: Number.isNaN(this.kernel.pipeline.target) ? null : this.kernel.pipeline.target,
            host: await this.o.host!.snapshot!(this.kernel.venue.openOrders.map((o) => o.id)),
          };
    const batch = this.pending;
    this.pending = [];
    await this.o.sink(batch, state);
  }

  /** The dropped-lines count last recorded. */
  private droppedRecorded = 0;

  /**
   * The strategy's new log lines as strategy_log events, with the time of the bar each was
   * written at. The sandbox bounds a run's lines (SVC_STRATEGY_LOG_LINES, across resumes too) and
   * counts the rest: the count is recorded when dropping starts and again at the end of the run.
   */
  private noteLogs(end: boolean): void {
    // The model answers first: they came before the decisions (and the lines) of their bar.
    for (const o of this.o.host?.drainModelOutputs?.() ?? [])
      this.pending.push({
        type: "model_output",
        data: { time: o.time, model: o.model, digest: o.digest, outputs: o.outputs },
      });
    const drained = this.o.host?.drainLogs?.();
    if (!drained) return;
    for (const line of drained.lines)
      this.pending.push({
        type: "strategy_log",
        data: {
          time: line.time,
          level: line.level,
          message: line.message,
          ...(line.fields ? { fields: { ...line.fields } } : {}),
        },
      });
    const dropped = drained.dropped;
    if (dropped > this.droppedRecorded && (this.droppedRecorded === 0 || end)) {
      this.droppedRecorded = dropped;
      this.pending.push({ type: "strategy_log_dropped", data: { dropped } });
    }
  }

  private pace(): Promise<void> {
    // A halt that came while the bar's events were being written found no wait to cut short:
    // do not start one, or the halt would wait a whole bar interval more.
    if (this.phase !== "Running") return Promise.resolve();
    return this.pacer.wait(this.o.speed);
  }

  /**
   * Fail-safe: with neither the kill-switch store nor the bus reachable, the runner cannot learn
   * of a halt, so it places no new orders (positions kept) until one of them answers again.
   */
  setFrozen(frozen: boolean, reason: string): void {
    if (this.frozen === frozen) return;
    this.frozen = frozen;
    if (frozen) this.kernel.venue.cancelAll(`fail-safe: ${reason}`);
    this.pending.push({ type: "fail_safe", data: { frozen, reason } });
  }

  /** Running -> Draining (mode applied) -> Stopped; every step recorded. */
  async halt(reason: string, mode: HaltMode = "cancel"): Promise<void> {
    if (this.ownPhase !== "Running") return;
    // Draining from this instant (or from the broadcast, if the gate closed first): the loop
    // starts no bar, so nothing is ordered or filled. The work of stopping waits one microtask,
    // so a broadcast heard by thousands of runners of one process marks them all before any of
    // them does it.
    this.gate.close();
    this.ownPhase = "Draining";
    await Promise.resolve();
    this.pacer.cut();
    this.interrupt?.();
    this.pending.push({ type: "phase_changed", data: { phase: "Draining", reason } });
    if (mode === "freeze") this.frozen = true;
    this.kernel.venue.cancelAll(`halt: ${reason}`);
    if (mode === "flatten" && Number.isFinite(this.lastClose))
      this.kernel.venue.flattenAt(this.lastClose);
    this.pending.push({ type: "halted", data: { reason } });
    this.phase = "Stopped";
    this.pending.push({ type: "phase_changed", data: { phase: "Stopped", reason } });
    await this.done.catch(() => undefined);
    this.noteLogs(true);
    await this.flush();
  }
}
