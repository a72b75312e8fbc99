import type { AlignedBars } from "../engine/portfolio/aligned.js";
import { PortfolioRun, type PortfolioSettings } from "../engine/portfolio/portfolio-run.js";
import type { Strategy } from "../engine/strategies/strategy.js";
import type { Order } from "../execution/events.js";
import { reduceOnlyWhile } from "../execution/reduce-only.js";
import type { DisabledBy } from "../execution/risk-controls/index.js";
import type { HaltMode, RunnerOptions, SessionRisk } from "./bot-runner.js";
import type { Phase, RunnerEvent } from "./events.js";
import { BarPacer, TradingGate } from "./trading-gate.js";

export interface PortfolioRunnerOptions {
  /** Every symbol's bars on one clock (alignBars): a symbol trades only at its own bars. */
  bars: AlignedBars;
  /** The clock index to start at (a resumed session continues where it stopped). */
  startIndex: number;
  /** Clock steps per second; 0, or more than a timer can pace (over 1000), is full speed. */
  speed: number;
  /** One built-in strategy per symbol, in `bars.symbols` order. */
  strategies: Strategy[];
  /** The run's engine settings; `initialCash` is the session's cash now (its one balance). */
  settings: PortfolioSettings;
  /** Where a resumed session's symbols stand: positions, working orders, next order ids. */
  accounts: Record<string, { units: number; openOrders: Order[]; nextOrderId: number }>;
  /** Goes before every order id (the task's: ids unique per bot). */
  idPrefix: string;
  risk?: SessionRisk;
  reduceOnly?: RunnerOptions["reduceOnly"];
  sink: (events: RunnerEvent[]) => Promise<void>;
  killSwitch?: RunnerOptions["killSwitch"];
}

/**
 * A paper session of a universe (docs/paper-sessions.md): the portfolio a backtest runs
 * (PortfolioRun: one cash balance, a position and a venue per symbol, the same sizing and
 * pre-trade checks), one step of its clock at a time, each symbol's bar recorded as it comes.
 * Its phases, halt modes, fail-safe, reduce-only and kill-switch gate are BotRunner's, applied
 * to every symbol: a halt cancels every symbol's working orders, a flatten closes every position.
 */
export class PortfolioRunner {
  private ownPhase: Phase = "Running";
  private readonly gate: TradingGate;
  private readonly pacer = new BarPacer();
  private readonly run: PortfolioRun;
  private pending: RunnerEvent[] = [];
  private frozen = false;
  private index: number;
  private reduceOnlyReason: string | undefined;
  private readonly done: Promise<"finished" | "stopped">;

  constructor(private readonly o: PortfolioRunnerOptions) {
    this.gate = new TradingGate(o.killSwitch);
    const risk = o.risk;
    const fleet = risk?.fleet;
    this.run = new PortfolioRun(o.settings, o.bars.symbols, {
      onEvent: (e) => this.pending.push(e),
      accounts: o.accounts,
      idPrefix: o.idPrefix,
      ...(risk
        ? {
            risk: {
              limits: risk.limits,
              refused: new Map(),
              startEquity: risk.startEquity,
              ...(fleet ? { fleet: () => fleet.others() } : {}),
              ...(risk.disabled ? { disabled: risk.disabled } : {}),
            },
          }
        : {}),
      ...(o.reduceOnly ? { checksAfter: [reduceOnlyWhile(() => this.reduceOnlyReason)] } : {}),
    });
    this.index = o.startIndex;
    if (o.startIndex > 0) this.run.relearn(o.bars, o.strategies, o.startIndex);
    this.done = this.bars();
  }

  get phase(): Phase {
    if (this.ownPhase === "Running" && this.gate.closed()) return "Draining";
    return this.ownPhase;
  }

  set phase(phase: Phase) {
    this.ownPhase = phase;
  }

  get drainingSince(): number {
    return this.gate.since;
  }

  finished(): Promise<"finished" | "stopped"> {
    return this.done;
  }

  /** Every symbol's position, in units. */
  get positions(): Record<string, number> {
    return Object.fromEntries(this.run.sleeves.map((s) => [s.symbol, s.units]));
  }

  private async bars(): Promise<"finished" | "stopped"> {
    const { bars } = this.o;
    const clock = bars.time.length;
    while (this.index < clock) {
      if (this.phase !== "Running") return "stopped";
      const t = this.index++;
      for (let i = 0; i < bars.symbols.length; i++) {
        const b = bars.bars[i]!;
        const close = b.close[t]!;
        if (close !== close) continue; // no bar of this symbol now: none recorded, none filled in
        this.pending.push({
          type: "bar_received",
          data: {
            index: t,
            symbol: bars.symbols[i]!,
            time: bars.time[t]!,
            open: b.open[t]!,
            high: b.high[t]!,
            low: b.low[t]!,
            close,
            volume: b.volume[t]!,
          },
        });
      }
      this.noteReduceOnly();
      this.run.runStrategies(bars, this.o.strategies, t, t + 1, !this.frozen);
      this.reportToFleet();
      await this.flush();
      await this.pace();
    }
    return "finished";
  }

  private reportToFleet(): void {
    const risk = this.o.risk;
    if (!risk?.fleet) return;
    risk.fleet.report({
      exposure: this.run.books.grossExposure(),
      loss: risk.startEquity - this.run.books.equity(),
    });
  }

  get riskDisabled(): DisabledBy | undefined {
    return this.run.guard?.disabled;
  }

  reEnableRisk(by: string, reason: string): void {
    if (!this.run.guard?.disabled) return;
    this.run.guard.reEnable();
    this.pending.push({ type: "risk_re_enabled", data: { by, reason } });
  }

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

  private async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    await this.o.sink(batch);
  }

  private pace(): Promise<void> {
    if (this.phase !== "Running") return Promise.resolve();
    return this.pacer.wait(this.o.speed);
  }

  /** Fail-safe (BotRunner's): blind to the kill switch, no new orders, every symbol's cancelled. */
  setFrozen(frozen: boolean, reason: string): void {
    if (this.frozen === frozen) return;
    this.frozen = frozen;
    if (frozen) for (const s of this.run.sleeves) s.broker.cancelAll(`fail-safe: ${reason}`);
    this.pending.push({ type: "fail_safe", data: { frozen, reason } });
  }

  /**
   * Running -> Draining (mode applied to every symbol) -> Stopped: cancel every working order;
   * flatten also closes every position at its symbol's last close; freeze keeps them.
   */
  async halt(reason: string, mode: HaltMode = "cancel"): Promise<void> {
    if (this.ownPhase !== "Running") return;
    this.gate.close();
    this.ownPhase = "Draining";
    await Promise.resolve();
    this.pacer.cut();
    this.pending.push({ type: "phase_changed", data: { phase: "Draining", reason } });
    if (mode === "freeze") this.frozen = true;
    for (const s of this.run.sleeves) s.broker.cancelAll(`halt: ${reason}`);
    if (mode === "flatten")
      for (const s of this.run.sleeves)
        if (s.units !== 0 && Number.isFinite(s.lastClose)) s.broker.flattenAt(s.lastClose);
    this.pending.push({ type: "halted", data: { reason } });
    this.phase = "Stopped";
    this.pending.push({ type: "phase_changed", data: { phase: "Stopped", reason } });
    await this.done.catch(() => undefined);
    await this.flush();
  }
}
