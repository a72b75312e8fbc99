import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Kysely, Transaction } from "kysely";
import type { AuditOrigin } from "@svc/lib/audit";
import type { EventBus } from "@svc/lib/bus";
import { publishBotPhaseChanged } from "@svc/lib/contracts";
import type { KeyValueStore } from "@svc/lib/kv";
import type { LicenseGate } from "@svc/lib/license";
import { countRunnerSessions, type Logger } from "@svc/lib/telemetry";
import { recordWorkloadRun, RUNNER_ORIGIN } from "../audit/workload-run.js";
import {
  engineSettingsFrom,
  isPortfolio,
  loadBars,
  loadPortfolioBars,
  resolveStrategy,
} from "../engine/index.js";
import { storedToSpec } from "../handlers/bot-mapping.js";
import { BotRunner, type HaltMode, type StrategyState } from "../runner/bot-runner.js";
import type { RunnerEvent } from "../runner/events.js";
import { keysFor, watchKillSwitch, type Engagement } from "../runner/kill-switch-watcher.js";
import { haltSpan, observePropagation } from "../runner/halt-telemetry.js";
import { PortfolioRunner } from "../runner/portfolio-runner.js";
import { portfolioAccounts, workingOrders } from "../runner/state.js";
import { isLiveSession } from "../domain/deployment-status.js";
import { appendEvents, LeaseLost, stateAsOf, taskEvents } from "../store/events.repository.js";
import { findBot, findVersion } from "../store/bots.repository.js";
import type { BotsDatabase, DeploymentRow } from "../store/bots.table.js";
import * as sessionStore from "../store/paper-sessions.repository.js";
import { recordDisabled, riskStateOf } from "../store/risk.repository.js";
import { riskLimitsOf } from "./risk-limits-of.js";
import { portfolioEngine, portfolioSource, runSource } from "./run-source.js";
import { FleetBook } from "./fleet-book.js";
import { SandboxUnavailable, StrategyFailure } from "../sandbox/index.js";
import { startSessionStrategy, type SessionStrategy } from "./session-strategy.js";

export interface NewSession {
  botId: string;
  version: number;
  spec: Record<string, unknown>;
  dataSource: string;
  speed: number;
  /** The approved allocation whose capital the session trades instead of the spec's initial cash. */
  allocation?: { requestId: string; capital: number };
  /** Who started it (the caller of the route), for its workload_run entry. */
  origin?: AuditOrigin;
}

/** The deployment row of a new paper session, status running, before any runner takes it on. */
export async function insertPaperDeployment(
  db: Kysely<BotsDatabase>,
  p: NewSession,
  host: string | null = null,
): Promise<DeploymentRow> {
  const request: sessionStore.PaperRequest = {
    data_source: p.dataSource,
    speed: p.speed,
    ...(p.allocation
      ? { allocation_request_id: p.allocation.requestId, initial_cash: p.allocation.capital }
      : {}),
  };
  // The row and its workload_run start entry commit together.
  return db.transaction().execute(async (trx) => {
    const row = await sessionStore.insertPaperSession(
      trx,
      { botId: p.botId, version: p.version, request },
      host,
    );
    await recordWorkloadRun(trx, p.origin ?? RUNNER_ORIGIN, {
      workload: "paper",
      op: "start",
      outcome: "succeeded",
      taskId: row.task_id,
      bot: { id: row.bot_id, version: row.version },
      details: { data_source: p.dataSource, speed: p.speed },
    });
    return row;
  });
}

/** The workload_run stop entry of a paper session one statement just ended. */
export function auditSessionStop(
  trx: Transaction<BotsDatabase>,
  origin: AuditOrigin,
  ended: sessionStore.EndedSession,
  status: "success" | "failed" | "halted",
  reason: string,
): Promise<void> {
  return recordWorkloadRun(trx, origin, {
    workload: "paper",
    op: "stop",
    outcome: status === "failed" ? "failed" : "succeeded",
    taskId: ended.task_id,
    bot: { id: ended.bot_id, version: ended.version },
    reason: `${status === "success" ? "stopped" : status}: ${reason}`,
  });
}

interface Session {
  row: DeploymentRow;
  spec: Record<string, unknown>;
  fleet: string | null;
  runner?: BotRunner | PortfolioRunner;
  watcher: ReturnType<typeof watchKillSwitch>;
  /** Halted by a kill switch: restarts by itself on release. */
  parked: boolean;
  /** The park and unpark steps of this session, chained so they never interleave. */
  steps: Promise<void>;
}

export interface SessionDeps {
  db: Kysely<BotsDatabase>;
  log: Logger;
  kv: KeyValueStore;
  bus: EventBus;
  pollIntervalMs: number;
  /** Seconds without renewal after which another host may take a session over (SVC_RUNNER_LEASE_S). */
  leaseSeconds?: number;
  /** The install's license: while it does not admit live_trading, sessions are reduce-only. */
  license?: LicenseGate;
}

/**
 * The paper sessions this bots service runs. A session's history is its events; on start the
 * service resumes every live session (running or parked) from them, so a restart loses nothing.
 * Each session watches its kill-switch keys: engaged, it drains, stops and is parked (the API
 * shows halted with parked: true); released, it restarts where it stopped (status running).
 */
export class PaperSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly fleets = new FleetBook();
  /** This process's name on the deployment rows it hosts. */
  readonly hostId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly uncount: () => void;
  constructor(private readonly deps: SessionDeps) {
    this.uncount = countRunnerSessions(() => {
      let parked = 0;
      for (const s of this.sessions.values()) if (s.parked) parked++;
      return { running: this.sessions.size - parked, parked };
    });
  }

  /**
   * Why sessions may only reduce their positions now: the license does not admit live_trading
   * (lapsed past grace, refused, or not entitled). A session already trading then closes what it
   * holds instead of being stranded, and trades freely again once a renewed lease is read.
   */
  private reduceOnlyReason(): string | undefined {
    const license = this.deps.license;
    if (!license?.enforced) return undefined;
    const verdict = license.admits("live_trading");
    return verdict.admitted ? undefined : `license ${verdict.standing.state}: ${verdict.reason}`;
  }

  /** The runner of a task (tests and drills read its phase). */
  runnerOf(taskId: string): BotRunner | PortfolioRunner | undefined {
    return this.sessions.get(taskId)?.runner;
  }

  async start(p: NewSession): Promise<DeploymentRow> {
    const row = await insertPaperDeployment(this.deps.db, p, this.hostId);
    await this.attach(row, p.spec, true);
    return row;
  }

  /** The bot's live session (running or parked), wherever it runs. */
  async runningTaskOf(botId: string): Promise<string | undefined> {
    return (await sessionStore.liveSessions(this.deps.db, botId))[0];
  }

  /**
   * Takes on every paper session marked running (or parked by a kill switch) that this process
   * does not host yet: at start, a restart resumes them from their events; a runner process
   * calls it again and again to pick up sessions the bots service created.
   */
  async pickUp(): Promise<number> {
    await this.dropEnded();
    await this.syncRisk();
    // Renew this host's lease, then claim what nobody holds or a silent host held.
    await sessionStore.renewSessionLeases(this.deps.db, this.hostId);
    const rows = await sessionStore.claimSessions(
      this.deps.db,
      this.hostId,
      this.deps.leaseSeconds ?? 15,
    );
    let taken = 0;
    for (const row of rows) {
      if (this.sessions.has(row.task_id)) continue;
      const version = await findVersion(this.deps.db, row.bot_id, row.version);
      if (!version) continue;
      const fresh = (await taskEvents(this.deps.db, row.task_id)).length === 0;
      await this.attach(row, version.spec, fresh, row.status === "parked").then(
        () => taken++,
        (err) =>
          this.deps.log.error({ err, task_id: row.task_id }, "could not take on a paper session"),
      );
    }
    return taken;
  }

  /**
   * Ends sessions whose row says another decision was taken (a stop or halt the bus did not
   * deliver), and lets go, without writing anything, of sessions another host took over while
   * this one was silent (paused, partitioned).
   */
  private async dropEnded(): Promise<void> {
    if (this.sessions.size === 0) return;
    const leases = await sessionStore.sessionLeases(this.deps.db, [...this.sessions.keys()]);
    for (const r of leases) {
      const s = this.sessions.get(r.task_id);
      if (s && (r.host !== this.hostId || String(r.lease_epoch) !== String(s.row.lease_epoch))) {
        await this.abandon(r.task_id);
        continue;
      }
      if (!isLiveSession(r.status))
        await this.stop(
          r.task_id,
          r.status === "success" ? "success" : "halted",
          "stopped by the bots service",
        );
    }
  }

  private serially(s: Session, step: () => Promise<void>, what: string): void {
    s.steps = s.steps.then(step).catch(this.failed(s.row.task_id, what));
  }

  /** The lease moved on: stop this host's copy of the session at once and write nothing more. */
  private async abandon(taskId: string): Promise<void> {
    const s = await this.end(taskId);
    if (!s) return;
    await s.steps;
    this.deps.log.warn(
      { task_id: taskId },
      "paper session lease moved to another host; stopped here without writing",
    );
    if (s.runner) s.runner.phase = "Stopped";
  }

  /** Handles a failed session step: a lost lease is abandoned quietly, anything else is logged. */
  private failed(taskId: string, what: string) {
    return (err: unknown) => {
      if (err instanceof LeaseLost) return this.abandon(taskId);
      this.deps.log.error({ err, task_id: taskId }, what);
    };
  }

  private async attach(
    row: DeploymentRow,
    spec: Record<string, unknown>,
    fresh: boolean,
    parked = false,
  ): Promise<void> {
    const bot = await findBot(this.deps.db, row.bot_id);
    if (!bot) throw new Error(`bot ${row.bot_id} of session ${row.task_id} no longer exists`);
    const session: Session = {
      row,
      spec,
      fleet: bot.fleet,
      parked,
      steps: Promise.resolve(),
      watcher: watchKillSwitch({
        kv: this.deps.kv,
        bus: this.deps.bus,
        keys: keysFor(bot.slug, bot.fleet),
        pollMs: this.deps.pollIntervalMs,
        // One at a time and in order: a release and an engage in quick succession must end halted.
        onEngage: (e) =>
          this.serially(
            session,
            () =>
              haltSpan(e, () =>
                this.park(row.task_id, `kill switch ${e.key}: ${e.reason || "engaged"}`, e.mode, e),
              ),
            "kill switch halt failed",
          ),
        onRelease: () =>
          this.serially(session, () => this.unpark(row.task_id), "restart after release failed"),
        onBlind: (blind) =>
          session.runner?.setFrozen(
            blind,
            blind
              ? "neither the kill-switch store nor the bus is reachable"
              : "kill-switch store or bus reachable again",
          ),
      }),
    };
    this.sessions.set(row.task_id, session);
    if (parked) return;
    // The start is the session's first step: a halt the watcher hears while the runner is still
    // being built (its first poll answers during the start) queues behind it and then halts the
    // runner, instead of finding none to halt and letting it start afterwards.
    const launching = this.launch(session, fresh);
    session.steps = launching.catch(() => undefined);
    await launching;
  }

  private async launch(session: Session, fresh: boolean): Promise<void> {
    const { row } = session;
    const spec = storedToSpec(session.spec);
    const request = row.request as { data_source: string; speed: number; initial_cash?: number };
    const code = spec.strategy?.code;
    const builtIn = code
      ? undefined
      : resolveStrategy(
          spec.strategy?.family ?? "",
          spec.strategy?.parameters as Record<string, unknown> | undefined,
        );
    const fromSpec = engineSettingsFrom(spec.engine);
    const settings = request.initial_cash
      ? { ...fromSpec, initialCash: request.initial_cash }
      : fromSpec;
    const portfolio = isPortfolio(spec.universe?.symbols, request.data_source);
    const source = portfolio
      ? await portfolioSource(this.deps.db, spec, request.data_source)
      : await runSource(this.deps.db, spec, request.data_source);
    const symbol = "symbol" in source ? source.symbol : source.parts[0]!.symbol;
    const state = await stateAsOf(this.deps.db, row.bot_id);
    const seen = fresh ? [] : await taskEvents(this.deps.db, row.task_id);
    const lastBar = seen.filter((e) => e.type === "bar_received").at(-1);
    const fence = { host: this.hostId, epoch: String(row.lease_epoch) };
    const sink = async (events: RunnerEvent[], strategyState?: StrategyState) => {
      const kept = strategyState
        ? { bar: strategyState.bar, json: JSON.stringify(strategyState) }
        : undefined;
      await appendEvents(this.deps.db, row.bot_id, row.task_id, events, fence, kept);
      for (const e of events)
        if (e.type === "risk_disabled")
          await recordDisabled(this.deps.db, row.bot_id, {
            ...e.data,
            taskId: row.task_id,
            at: new Date(),
          });
    };
    const risk = await this.riskOf(session, settings.initialCash);
    await sink(
      fresh
        ? [
            {
              type: "session_started",
              data: {
                task_id: row.task_id,
                version: row.version,
                symbol,
                ...("parts" in source ? { symbols: source.parts.map((p) => p.symbol) } : {}),
                initial_cash: settings.initialCash,
                data_source: request.data_source,
              },
            },
            { type: "phase_changed", data: { phase: "Running", reason: "paper session started" } },
          ]
        : state.phase === "Running"
          ? []
          : [{ type: "phase_changed", data: { phase: "Running", reason: "restarted" } }],
    );
    const lastIndex = lastBar ? Number(lastBar.data.index) : undefined;
    if ("parts" in source) {
      const bars = await loadPortfolioBars(source.parts, undefined, undefined, source.opts);
      const engine = portfolioEngine(spec);
      const runner = new PortfolioRunner({
        bars,
        startIndex: lastIndex !== undefined ? lastIndex + 1 : 0,
        speed: request.speed,
        strategies: bars.symbols.map(() => builtIn!.family.create(builtIn!.params)),
        settings: {
          ...settings,
          initialCash: state.initialCash ? state.cash : settings.initialCash,
          allowShort: engine.allowShort,
          symbolCosts: engine.symbolCosts,
        },
        accounts: portfolioAccounts(bars.symbols, state, seen),
        // Order ids are unique per bot: the task's prefix, then the symbol's own running count.
        idPrefix: `${row.task_id}-`,
        reduceOnly: () => this.reduceOnlyReason(),
        risk,
        sink,
        killSwitch: session.watcher,
      });
      this.follow(session, runner, sink);
      return;
    }
    const bars = await loadBars(request.data_source, undefined, undefined, source.opts);
    let strategy: SessionStrategy | undefined;
    if (code)
      try {
        strategy = await startSessionStrategy({
          db: this.deps.db,
          log: this.deps.log,
          taskId: row.task_id,
          botId: row.bot_id,
          version: row.version,
          spec,
          symbol,
          bars,
          lastBar: lastIndex,
        });
      } catch (err) {
        if (!(err instanceof StrategyFailure || err instanceof SandboxUnavailable)) throw err;
        await this.strategyFailed(session, sink, err);
        return;
      }
    const runner = new BotRunner({
      symbol,
      bars,
      startIndex: lastIndex !== undefined ? lastIndex + 1 : 0,
      speed: request.speed,
      ...(strategy
        ? {
            host: strategy.host,
            ...(strategy.resumeTarget !== undefined ? { resumeTarget: strategy.resumeTarget } : {}),
          }
        : { strategy: builtIn!.family.create(builtIn!.params) }),
      costs: {
        feeBps: settings.feeBps,
        slippageBps: settings.slippageBps,
        positionSize: settings.positionSize,
        maxVolumeParticipation: settings.maxVolumeParticipation,
      },
      broker: {
        cash: state.initialCash ? state.cash : settings.initialCash,
        units: state.positions[symbol] ?? 0,
        // Order ids are unique per bot: the task's prefix and its own running count.
        idPrefix: `${row.task_id}-`,
        nextOrderId: seen.filter((e) => e.type === "order_placed").length + 1,
        openOrders: workingOrders(state.openOrders),
      },
      reduceOnly: () => this.reduceOnlyReason(),
      risk,
      sink,
      // The park that halts it is chained behind the session's other steps (an unpark's writes,
      // say): the gate stops its bars the moment the broadcast is heard, whatever they wait on.
      killSwitch: session.watcher,
    });
    this.follow(session, runner, sink);
  }

  /** The session's runner from now on, and what its end does: out of bars is a success. */
  private follow(
    session: Session,
    runner: BotRunner | PortfolioRunner,
    sink: (events: RunnerEvent[]) => Promise<void>,
  ): void {
    const { row } = session;
    session.runner = runner;
    session.parked = false;
    void runner
      .finished()
      .then(async (how) => {
        if (how !== "finished" || session.runner !== runner || !this.sessions.has(row.task_id))
          return;
        await this.end(row.task_id);
        await sink([
          { type: "phase_changed", data: { phase: "Stopped", reason: "the data feed ended" } },
        ]);
        await this.endSession(row.task_id, "success", null, "the data feed ended");
      })
      .catch(async (err: unknown) => {
        if (
          (err instanceof StrategyFailure || err instanceof SandboxUnavailable) &&
          session.runner === runner
        )
          return this.strategyFailed(session, sink, err);
        throw err;
      })
      .catch(this.failed(row.task_id, "paper session failed"));
  }

  /**
   * The session's strategy failed (its sandbox's limits, an error it threw, bad params) or its
   * sandbox could not start: the session ends failed, its error naming the code
   * ("strategy_timeout: ...") as a backtest's does.
   */
  private async strategyFailed(
    session: Session,
    sink: (events: RunnerEvent[]) => Promise<void>,
    err: StrategyFailure | SandboxUnavailable,
  ): Promise<void> {
    const { task_id: taskId } = session.row;
    if (!this.sessions.has(taskId)) return;
    const error = err instanceof StrategyFailure ? `${err.code}: ${err.message}` : err.message;
    await this.end(taskId);
    await sink([{ type: "phase_changed", data: { phase: "Stopped", reason: error } }]);
    await this.endSession(taskId, "failed", error, error);
  }

  /**
   * The session's risk limits (its spec's and its fleet's), its share of the fleet book, and the
   * throttle breach that still disables the bot, if no one re-enabled it yet.
   */
  private async riskOf(session: Session, startEquity: number) {
    const { row, fleet } = session;
    const limits = await riskLimitsOf(this.deps.db, storedToSpec(session.spec), fleet);
    const state = await riskStateOf(this.deps.db, row.bot_id);
    const book = this.fleets;
    return {
      limits,
      startEquity,
      ...(fleet
        ? {
            fleet: {
              others: () => book.others(fleet, row.task_id),
              report: (own: { exposure: number; loss: number }) =>
                book.report(fleet, row.task_id, own),
            },
          }
        : {}),
      ...(state?.disabled
        ? {
            disabled: {
              control: state.control,
              reason: state.reason,
              limit: state.limit_value,
              value: state.observed_value,
            },
          }
        : {}),
    };
  }

  /**
   * Brings the bot's running sessions in line with its stored risk state: a session a throttle
   * breach disabled trades again once the state says a person re-enabled the bot. Asked at once
   * by the re-enable route, and on every pick-up in case that word was lost.
   */
  async syncRisk(botId?: string): Promise<void> {
    for (const s of this.sessions.values()) {
      if (botId && s.row.bot_id !== botId) continue;
      const runner = s.runner;
      if (!runner?.riskDisabled) continue;
      const state = await riskStateOf(this.deps.db, s.row.bot_id);
      if (state && !state.disabled)
        runner.reEnableRisk(state.re_enabled_by ?? "", state.re_enable_reason ?? "");
    }
  }

  private async park(
    taskId: string,
    reason: string,
    mode: HaltMode,
    told?: Engagement,
  ): Promise<void> {
    const s = this.sessions.get(taskId);
    if (!s || s.parked) return;
    s.parked = true;
    const runner = s.runner;
    s.runner = undefined;
    // The runner drains from the call on (its stop continues a microtask later); then it is said.
    const halted = runner?.halt(reason, mode);
    this.announce(s, "Draining");
    observePropagation(told);
    await halted;
    this.announce(s, "Stopped");
    await this.setStatus(taskId, "parked", null);
  }

  private async unpark(taskId: string): Promise<void> {
    const s = this.sessions.get(taskId);
    if (!s || !s.parked || s.watcher.engaged()) return;
    // Running first, then the status: whoever sees status running also sees phase Running.
    await this.launch(s, false);
    await this.setStatus(taskId, "running", null);
    this.announce(s, "Running");
  }

  /** Phase changes on the bus, for drills and dashboards; bot_events stays the record. */
  private announce(s: Session, phase: "Draining" | "Stopped" | "Running"): void {
    void publishBotPhaseChanged(this.deps.bus, {
      taskId: s.row.task_id,
      botId: s.row.bot_id,
      phase,
    });
  }

  private async end(taskId: string): Promise<Session | undefined> {
    const s = this.sessions.get(taskId);
    if (!s) return undefined;
    this.sessions.delete(taskId);
    this.fleets.drop(taskId);
    await s.watcher.stop();
    return s;
  }

  /** Stops one session by request: a clean stop is a success, a halt is halted. */
  async stop(
    taskId: string,
    status: "success" | "halted",
    reason: string,
    origin?: AuditOrigin,
    mode: HaltMode = "cancel",
  ): Promise<boolean> {
    const s = await this.end(taskId);
    if (!s) return false;
    // A start or a restart after a release may be building the runner right now: halt the runner
    // it makes, rather than end the session under it and leave that runner trading unreachable.
    await s.steps;
    await s.runner?.halt(reason, mode);
    await this.endSession(taskId, status, null, reason, origin);
    return true;
  }

  async haltBot(botId: string, reason: string, origin?: AuditOrigin): Promise<string[]> {
    const ids = [...this.sessions.values()]
      .filter((s) => s.row.bot_id === botId)
      .map((s) => s.row.task_id);
    await Promise.all(ids.map((id) => this.stop(id, "halted", reason, origin)));
    return ids;
  }

  async haltAll(reason: string, origin?: AuditOrigin): Promise<string[]> {
    const ids = [...this.sessions.keys()];
    await Promise.all(ids.map((id) => this.stop(id, "halted", reason, origin)));
    return ids;
  }

  /** Shutdown: the loops stop, the rows keep their status, the next process resumes them. */
  async detachAll(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    this.uncount();
    // Hand the sessions back at once: the next host resumes them without waiting for the lease to lapse.
    await sessionStore
      .releaseSessions(
        this.deps.db,
        all.map((s) => s.row.task_id),
      )
      .catch(() => undefined);
    for (const s of all) {
      await s.watcher.stop();
      if (s.runner) s.runner.phase = "Stopped";
    }
    await Promise.all(all.map((s) => s.runner?.finished().catch(() => undefined)));
  }

  /**
   * Ends a session this host holds with its workload_run stop entry, in one transaction. One the
   * bots service ended already (external runners: it wrote the entry) is only given the status.
   */
  private async endSession(
    taskId: string,
    status: "success" | "failed" | "halted",
    error: string | null,
    reason: string,
    origin: AuditOrigin = RUNNER_ORIGIN,
  ): Promise<void> {
    const ended = await this.deps.db.transaction().execute(async (trx) => {
      const row = await sessionStore.endHeldSession(trx, taskId, this.hostId, status, error);
      if (row) await auditSessionStop(trx, origin, row, status, reason);
      return row;
    });
    if (!ended) await this.setStatus(taskId, status, error);
  }

  private async setStatus(
    taskId: string,
    status: DeploymentRow["status"],
    error?: string | null,
  ): Promise<void> {
    // Only the lease holder decides a session's status: a host that lost it writes nothing.
    await sessionStore.setSessionStatus(this.deps.db, taskId, this.hostId, status, error);
  }
}
