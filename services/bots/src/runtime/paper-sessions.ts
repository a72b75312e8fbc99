import { randomUUID } from "node:crypto";
import { sql, type Kysely } from "kysely";
import type { Logger } from "@svc/lib/telemetry";
import { engineSettingsFrom, loadBars, resolveStrategy } from "../engine/index.js";
import { storedToSpec } from "../handlers/bot-mapping.js";
import { BotRunner, type HaltMode } from "../runner/bot-runner.js";
import type { RunnerEvent } from "../runner/events.js";
import { appendEvents, stateAsOf, taskEvents } from "../store/events.repository.js";
import type { BotsDatabase, DeploymentRow } from "../store/bots.table.js";

interface Session {
  taskId: string;
  botId: string;
  runner: BotRunner;
}

/**
 * The paper sessions this bots service runs. A session's history is its events; on start the
 * service resumes every session still marked running from them, so a restart loses nothing.
 */
export class PaperSessions {
  private readonly sessions = new Map<string, Session>();
  constructor(private readonly deps: { db: Kysely<BotsDatabase>; log: Logger }) {}

  /** The running session of a bot, if any. */
  runningFor(botId: string): string | undefined {
    return [...this.sessions.values()].find((s) => s.botId === botId)?.taskId;
  }

  async start(p: { botId: string; version: number; spec: Record<string, unknown>; dataSource: string; speed: number }): Promise<DeploymentRow> {
    const id = randomUUID();
    const taskId = `paper-${id.slice(0, 8)}`;
    const row = await this.deps.db
      .insertInto("bot_deployments")
      .values({ id, bot_id: p.botId, version: p.version, target: "paper", status: "running", task_id: taskId, request: JSON.stringify({ data_source: p.dataSource, speed: p.speed }) })
      .returningAll()
      .executeTakeFirstOrThrow();
    await this.launch(row, p.spec, true);
    return row;
  }

  /** Resumes the sessions a previous process left running. */
  async resumeAll(): Promise<number> {
    const rows = await this.deps.db.selectFrom("bot_deployments").selectAll().where("target", "=", "paper").where("status", "=", "running").execute();
    for (const row of rows) {
      const version = await this.deps.db.selectFrom("bot_versions").select("spec").where("bot_id", "=", row.bot_id).where("version", "=", row.version).executeTakeFirst();
      if (!version) continue;
      await this.launch(row, version.spec, false).catch((err) => this.deps.log.error({ err, task_id: row.task_id }, "could not resume a paper session"));
    }
    return rows.length;
  }

  private async launch(row: DeploymentRow, storedSpec: Record<string, unknown>, fresh: boolean): Promise<void> {
    const spec = storedToSpec(storedSpec);
    const request = row.request as { data_source: string; speed: number };
    const { family, params } = resolveStrategy(spec.strategy?.family ?? "", spec.strategy?.parameters as Record<string, unknown> | undefined);
    const settings = engineSettingsFrom(spec.engine);
    const bars = await loadBars(request.data_source);
    const symbol = spec.universe?.symbols[0] ?? "ASSET";
    const state = await stateAsOf(this.deps.db, row.bot_id);
    const seen = fresh ? [] : await taskEvents(this.deps.db, row.task_id);
    const lastBar = seen.filter((e) => e.type === "bar_received").at(-1);
    const startIndex = lastBar ? Number(lastBar.data.index) + 1 : 0;
    const sink = (events: RunnerEvent[]) => appendEvents(this.deps.db, row.bot_id, row.task_id, events);
    if (fresh) {
      await sink([
        { type: "session_started", data: { task_id: row.task_id, version: row.version, symbol, initial_cash: settings.initialCash, data_source: request.data_source } },
        { type: "phase_changed", data: { phase: "Running", reason: "paper session started" } },
      ]);
    }
    const cash = state.initialCash ? state.cash : settings.initialCash;
    const runner = new BotRunner({
      symbol,
      bars,
      startIndex,
      speed: request.speed,
      strategy: family.create(params),
      costs: { feeBps: settings.feeBps, slippageBps: settings.slippageBps, positionSize: settings.positionSize },
      broker: {
        cash,
        units: state.positions[symbol] ?? 0,
        // Order ids are unique per bot: the task's prefix and its own running count.
        idPrefix: `${row.task_id}-`,
        nextOrderId: seen.filter((e) => e.type === "order_placed").length + 1,
        openOrders: Object.entries(state.openOrders).map(([id, o]) => ({ id, side: o.side as "buy" | "sell", kind: "market", units: o.units })),
      },
      sink,
    });
    this.sessions.set(row.task_id, { taskId: row.task_id, botId: row.bot_id, runner });
    void runner.finished().then(async (how) => {
      if (how !== "finished" || !this.sessions.has(row.task_id)) return;
      this.sessions.delete(row.task_id);
      await sink([{ type: "phase_changed", data: { phase: "Stopped", reason: "the data feed ended" } }]);
      await this.setStatus(row.task_id, "success");
    }).catch((err) => this.deps.log.error({ err, task_id: row.task_id }, "paper session failed"));
  }

  /** Stops one session: a clean stop is a success, a halt is halted. */
  async stop(taskId: string, status: "success" | "halted", reason: string, mode: HaltMode = "cancel"): Promise<boolean> {
    const session = this.sessions.get(taskId);
    if (!session) return false;
    this.sessions.delete(taskId);
    await session.runner.halt(reason, mode);
    await this.setStatus(taskId, status);
    return true;
  }

  async haltBot(botId: string, reason: string): Promise<string[]> {
    const ids = [...this.sessions.values()].filter((s) => s.botId === botId).map((s) => s.taskId);
    await Promise.all(ids.map((id) => this.stop(id, "halted", reason)));
    return ids;
  }

  async haltAll(reason: string): Promise<string[]> {
    const ids = [...this.sessions.keys()];
    await Promise.all(ids.map((id) => this.stop(id, "halted", reason)));
    return ids;
  }

  /** Shutdown: the loops stop, the rows stay running, the next process resumes them. */
  async detachAll(): Promise<void> {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    for (const s of all) s.runner.phase = "Stopped";
    await Promise.all(all.map((s) => s.runner.finished().catch(() => undefined)));
  }

  private async setStatus(taskId: string, status: DeploymentRow["status"]): Promise<void> {
    await this.deps.db.updateTable("bot_deployments").set({ status, updated_at: sql<Date>`now()` as unknown as Date }).where("task_id", "=", taskId).execute();
  }
}
