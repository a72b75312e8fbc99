import { randomUUID } from "node:crypto";
import { sql, type Kysely } from "kysely";
import type { EventBus } from "@svc/lib/bus";
import type { KeyValueStore } from "@svc/lib/kv";
import type { Logger } from "@svc/lib/telemetry";
import { engineSettingsFrom, loadBars, resolveStrategy } from "../engine/index.js";
import { storedToSpec } from "../handlers/bot-mapping.js";
import { BotRunner, type HaltMode } from "../runner/bot-runner.js";
import type { RunnerEvent } from "../runner/events.js";
import { keysFor, watchKillSwitch } from "../runner/kill-switch-watcher.js";
import { appendEvents, stateAsOf, taskEvents } from "../store/events.repository.js";
import type { BotsDatabase, DeploymentRow } from "../store/bots.table.js";

/** Where runners announce their phase changes. */
export const PHASE_SUBJECT = "svc.bots.phase";

interface Session {
  row: DeploymentRow;
  spec: Record<string, unknown>;
  runner?: BotRunner;
  watcher: ReturnType<typeof watchKillSwitch>;
  /** Halted by a kill switch: restarts by itself on release. */
  parked: boolean;
}

export interface SessionDeps {
  db: Kysely<BotsDatabase>;
  log: Logger;
  kv: KeyValueStore;
  bus: EventBus;
  pollIntervalMs: number;
}

/**
 * The paper sessions this bots service runs. A session's history is its events; on start the
 * service resumes every session still marked running from them, so a restart loses nothing.
 * Each session watches its kill-switch keys: engaged, it drains and stops (status halted);
 * released, it restarts where it stopped (status running).
 */
export class PaperSessions {
  private readonly sessions = new Map<string, Session>();
  constructor(private readonly deps: SessionDeps) {}

  runningFor(botId: string): string | undefined {
    return [...this.sessions.values()].find((s) => s.row.bot_id === botId)?.row.task_id;
  }

  /** The runner of a task (tests and drills read its phase). */
  runnerOf(taskId: string): BotRunner | undefined {
    return this.sessions.get(taskId)?.runner;
  }

  async start(p: { botId: string; version: number; spec: Record<string, unknown>; dataSource: string; speed: number }): Promise<DeploymentRow> {
    const id = randomUUID();
    const taskId = `paper-${id.slice(0, 8)}`;
    const row = await this.deps.db
      .insertInto("bot_deployments")
      .values({ id, bot_id: p.botId, version: p.version, target: "paper", status: "running", task_id: taskId, request: JSON.stringify({ data_source: p.dataSource, speed: p.speed }) })
      .returningAll()
      .executeTakeFirstOrThrow();
    await this.attach(row, p.spec, true);
    return row;
  }

  /** Resumes the sessions a previous process left running or parked by a kill switch. */
  async resumeAll(): Promise<number> {
    const rows = await this.deps.db
      .selectFrom("bot_deployments")
      .selectAll()
      .where("target", "=", "paper")
      .where((eb) => eb.or([eb("status", "=", "running"), eb.and([eb("status", "=", "halted"), eb("error", "=", "kill switch")])]))
      .execute();
    for (const row of rows) {
      const version = await this.deps.db.selectFrom("bot_versions").select("spec").where("bot_id", "=", row.bot_id).where("version", "=", row.version).executeTakeFirst();
      if (!version) continue;
      await this.attach(row, version.spec, false, row.status === "halted").catch((err) => this.deps.log.error({ err, task_id: row.task_id }, "could not resume a paper session"));
    }
    return rows.length;
  }

  private async attach(row: DeploymentRow, spec: Record<string, unknown>, fresh: boolean, parked = false): Promise<void> {
    const bot = await this.deps.db.selectFrom("bots").select(["slug", "fleet"]).where("id", "=", row.bot_id).executeTakeFirstOrThrow();
    const session: Session = {
      row,
      spec,
      parked,
      watcher: watchKillSwitch({
        kv: this.deps.kv,
        bus: this.deps.bus,
        keys: keysFor(bot.slug, bot.fleet),
        pollMs: this.deps.pollIntervalMs,
        onEngage: (e) => void this.park(row.task_id, `kill switch ${e.key}: ${e.reason || "engaged"}`, e.mode).catch((err) => this.deps.log.error({ err }, "kill switch halt failed")),
        onRelease: () => void this.unpark(row.task_id).catch((err) => this.deps.log.error({ err }, "restart after release failed")),
        onBlind: (blind) => session.runner?.setFrozen(blind, blind ? "neither the kill-switch store nor the bus is reachable" : "kill-switch store or bus reachable again"),
      }),
    };
    this.sessions.set(row.task_id, session);
    if (!parked) await this.launch(session, fresh);
  }

  private async launch(session: Session, fresh: boolean): Promise<void> {
    const { row } = session;
    const spec = storedToSpec(session.spec);
    const request = row.request as { data_source: string; speed: number };
    const { family, params } = resolveStrategy(spec.strategy?.family ?? "", spec.strategy?.parameters as Record<string, unknown> | undefined);
    const settings = engineSettingsFrom(spec.engine);
    const bars = await loadBars(request.data_source);
    const symbol = spec.universe?.symbols[0] ?? "ASSET";
    const state = await stateAsOf(this.deps.db, row.bot_id);
    const seen = fresh ? [] : await taskEvents(this.deps.db, row.task_id);
    const lastBar = seen.filter((e) => e.type === "bar_received").at(-1);
    const sink = (events: RunnerEvent[]) => appendEvents(this.deps.db, row.bot_id, row.task_id, events);
    await sink(
      fresh
        ? [
            { type: "session_started", data: { task_id: row.task_id, version: row.version, symbol, initial_cash: settings.initialCash, data_source: request.data_source } },
            { type: "phase_changed", data: { phase: "Running", reason: "paper session started" } },
          ]
        : state.phase === "Running"
          ? []
          : [{ type: "phase_changed", data: { phase: "Running", reason: "restarted" } }],
    );
    const runner = new BotRunner({
      symbol,
      bars,
      startIndex: lastBar ? Number(lastBar.data.index) + 1 : 0,
      speed: request.speed,
      strategy: family.create(params),
      costs: { feeBps: settings.feeBps, slippageBps: settings.slippageBps, positionSize: settings.positionSize },
      broker: {
        cash: state.initialCash ? state.cash : settings.initialCash,
        units: state.positions[symbol] ?? 0,
        // Order ids are unique per bot: the task's prefix and its own running count.
        idPrefix: `${row.task_id}-`,
        nextOrderId: seen.filter((e) => e.type === "order_placed").length + 1,
        openOrders: Object.entries(state.openOrders).map(([id, o]) => ({ id, side: o.side as "buy" | "sell", kind: "market", units: o.units })),
      },
      sink,
    });
    session.runner = runner;
    session.parked = false;
    void runner
      .finished()
      .then(async (how) => {
        if (how !== "finished" || session.runner !== runner || !this.sessions.has(row.task_id)) return;
        await this.end(row.task_id);
        await sink([{ type: "phase_changed", data: { phase: "Stopped", reason: "the data feed ended" } }]);
        await this.setStatus(row.task_id, "success");
      })
      .catch((err) => this.deps.log.error({ err, task_id: row.task_id }, "paper session failed"));
  }

  private async park(taskId: string, reason: string, mode: HaltMode): Promise<void> {
    const s = this.sessions.get(taskId);
    if (!s || s.parked) return;
    s.parked = true;
    const runner = s.runner;
    s.runner = undefined;
    this.announce(s, "Draining");
    await runner?.halt(reason, mode);
    this.announce(s, "Stopped");
    await this.setStatus(taskId, "halted", "kill switch");
  }

  private async unpark(taskId: string): Promise<void> {
    const s = this.sessions.get(taskId);
    if (!s || !s.parked) return;
    await this.setStatus(taskId, "running", null);
    await this.launch(s, false);
    this.announce(s, "Running");
  }

  /** Phase changes on the bus, for drills and dashboards; bot_events stays the record. */
  private announce(s: Session, phase: "Draining" | "Stopped" | "Running"): void {
    const body = JSON.stringify({ task_id: s.row.task_id, bot_id: s.row.bot_id, phase, at: Date.now() });
    void this.deps.bus.broadcast(PHASE_SUBJECT, new TextEncoder().encode(body)).catch(() => undefined);
  }

  private async end(taskId: string): Promise<Session | undefined> {
    const s = this.sessions.get(taskId);
    if (!s) return undefined;
    this.sessions.delete(taskId);
    await s.watcher.stop();
    return s;
  }

  /** Stops one session by request: a clean stop is a success, a halt is halted. */
  async stop(taskId: string, status: "success" | "halted", reason: string, mode: HaltMode = "cancel"): Promise<boolean> {
    const s = await this.end(taskId);
    if (!s) return false;
    await s.runner?.halt(reason, mode);
    await this.setStatus(taskId, status, null);
    return true;
  }

  async haltBot(botId: string, reason: string): Promise<string[]> {
    const ids = [...this.sessions.values()].filter((s) => s.row.bot_id === botId).map((s) => s.row.task_id);
    await Promise.all(ids.map((id) => this.stop(id, "halted", reason)));
    return ids;
  }

  async haltAll(reason: string): Promise<string[]> {
    const ids = [...this.sessions.keys()];
    await Promise.all(ids.map((id) => this.stop(id, "halted", reason)));
    return ids;
  }

  /** Shutdown: the loops stop, the rows keep their status, the next process resumes them. */
  async detachAll(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    for (const s of all) {
      await s.watcher.stop();
      if (s.runner) s.runner.phase = "Stopped";
    }
    await Promise.all(all.map((s) => s.runner?.finished().catch(() => undefined)));
  }

  private async setStatus(taskId: string, status: DeploymentRow["status"], error?: string | null): Promise<void> {
    await this.deps.db
      .updateTable("bot_deployments")
      .set({ status, ...(error !== undefined ? { error } : {}), updated_at: sql<Date>`now()` as unknown as Date })
      .where("task_id", "=", taskId)
      .execute();
  }
}
