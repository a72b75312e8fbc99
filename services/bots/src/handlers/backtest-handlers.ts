import { randomUUID } from "node:crypto";
import { create, toBinary, type JsonObject } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import { sql, type Kysely, type Transaction } from "kysely";
import { BotDeploymentSchema, BotsService, DeploymentStatus, DeploymentTarget, ListBotDeploymentsResponseSchema, type BotDeployment } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { TrialRecordedSchema } from "@svc/gen/svc/events/v1/events_pb.js";
import { enqueueEvent } from "@svc/lib/bus";
import { Code, svcError } from "@svc/lib/errors";
import { BacktestRun, DEFAULT_DATA_SOURCE, EngineInputError, engineSettingsFrom, loadBars, resolveStrategy, type Bars, type RunMetrics } from "../engine/index.js";
import { TaskCancelled, yieldToEventLoop, type TaskRunner } from "../runtime/task-runner.js";
import * as repo from "../store/bots.repository.js";
import type { BotsDatabase, DeploymentRow } from "../store/bots.table.js";
import { storedToSpec } from "./bot-mapping.js";
import { botNotFound } from "./bot-errors.js";

const SCHEMA = "bots";
const CHUNK = 250_000;

type Handlers = Pick<ServiceImpl<typeof BotsService>, "backtestBot" | "listBotDeployments">;

/**
 * Backtests: the request checks everything a person could get wrong (bot, version, strategy,
 * parameters, data, range) and answers at once with a pending BotDeployment; the run goes
 * pending -> running -> success | failed in the background, and a success is recorded as a
 * trial in the TrialLedger (and announced) in the same transaction as the result.
 */
export function createBacktestHandlers(deps: { db: Kysely<BotsDatabase>; tasks: TaskRunner }): Handlers {
  const { db } = deps;
  return {
    async backtestBot(req) {
      const bot = await repo.findBot(db, req.botRef);
      if (!bot) throw botNotFound(req.botRef);
      if (bot.status === "archived") throw svcError(Code.FailedPrecondition, "bot_archived", `bot "${bot.slug}" is archived; restore it to draft before backtesting it`, { status: "archived" });
      const version = req.version || bot.current_version;
      const versionRow = await db.selectFrom("bot_versions").selectAll().where("bot_id", "=", bot.id).where("version", "=", version).executeTakeFirst();
      if (!versionRow) throw svcError(Code.NotFound, "version_not_found", `bot "${bot.slug}" has no version ${version}; it has 1 to ${bot.current_version}`, { field: "version" });
      const spec = storedToSpec(versionRow.spec);
      const dataSource = req.dataSource || DEFAULT_DATA_SOURCE;
      let prepared: { bars: Bars; family: ReturnType<typeof resolveStrategy> };
      try {
        if (!spec.strategy?.family) throw new EngineInputError("invalid_parameter", `version ${version} of bot "${bot.slug}" has no strategy; set strategy.family in its spec`, "strategy.family");
        const family = resolveStrategy(spec.strategy.family, spec.strategy.parameters as Record<string, unknown> | undefined);
        const bars = await loadBars(dataSource, req.start ? timestampDate(req.start).getTime() : undefined, req.end ? timestampDate(req.end).getTime() : undefined);
        prepared = { bars, family };
      } catch (err) {
        if (err instanceof EngineInputError) throw svcError(Code.InvalidArgument, err.code, err.message, { field: err.field ?? "", ...(err.line ? { line: err.line } : {}) });
        throw err;
      }
      const settings = (() => {
        try {
          return engineSettingsFrom(spec.engine);
        } catch (err) {
          throw svcError(Code.InvalidArgument, "invalid_parameter", (err as Error).message, { field: (err as EngineInputError).field ?? "engine" });
        }
      })();
      const id = randomUUID();
      const taskId = `bt-${id.slice(0, 8)}`;
      const row = await db
        .insertInto("bot_deployments")
        .values({ id, bot_id: bot.id, version, target: "backtest", status: "pending", task_id: taskId, request: JSON.stringify({ data_source: dataSource, start: req.start ? timestampDate(req.start) : null, end: req.end ? timestampDate(req.end) : null }) })
        .returningAll()
        .executeTakeFirstOrThrow();

      deps.tasks.submit(taskId, async () => {
        await setStatus(db, id, "running");
        const run = new BacktestRun(prepared.family.family.create(prepared.family.params), settings);
        const { bars } = prepared;
        for (let from = 0; from < bars.length; from += CHUNK) {
          const to = Math.min(from + CHUNK, bars.length);
          run.feed({ length: to - from, time: bars.time.subarray(from, to), open: bars.open.subarray(from, to), high: bars.high.subarray(from, to), low: bars.low.subarray(from, to), close: bars.close.subarray(from, to), volume: bars.volume.subarray(from, to) });
          await yieldToEventLoop();
          if (deps.tasks.cancelled(taskId)) throw new TaskCancelled();
        }
        const metrics = run.finish();
        await db.transaction().execute(async (trx) => {
          await trx
            .updateTable("bot_deployments")
            .set({ status: "success", result_summary: JSON.stringify(summaryOf(metrics, dataSource)), updated_at: sql<Date>`now()` as unknown as Date })
            .where("id", "=", id)
            .execute();
          await recordTrial(trx, { botId: bot.id, version, specHash: versionRow.spec_hash, family: prepared.family.family.family, params: prepared.family.params, dataSource, metrics });
        });
      });
      return rowToDeployment(row);
    },

    async listBotDeployments(req) {
      const bot = await repo.findBot(db, req.botRef);
      if (!bot) throw botNotFound(req.botRef);
      const rows = await db.selectFrom("bot_deployments").selectAll().where("bot_id", "=", bot.id).orderBy("created_at", "desc").orderBy("id").execute();
      return create(ListBotDeploymentsResponseSchema, { items: rows.map(rowToDeployment) });
    },
  };
}

/** Marks a task failed with the reason; used by the task runner for any error of a run. */
export async function failDeployment(db: Kysely<BotsDatabase>, taskId: string, err: unknown): Promise<void> {
  await db
    .updateTable("bot_deployments")
    .set({ status: err instanceof TaskCancelled ? "halted" : "failed", error: (err as Error)?.message ?? String(err), updated_at: sql<Date>`now()` as unknown as Date })
    .where("task_id", "=", taskId)
    .execute();
}

async function setStatus(db: Kysely<BotsDatabase>, id: string, status: DeploymentRow["status"]): Promise<void> {
  await db.updateTable("bot_deployments").set({ status, updated_at: sql<Date>`now()` as unknown as Date }).where("id", "=", id).execute();
}

function summaryOf(m: RunMetrics, dataSource: string): JsonObject {
  const r = (x: number) => Math.round(x * 1e8) / 1e8;
  return {
    data_source: dataSource,
    bars: m.bars,
    total_return: r(m.totalReturn),
    pnl: r(m.pnl),
    final_equity: r(m.finalEquity),
    sharpe: r(m.sharpe),
    sortino: r(m.sortino),
    max_drawdown: r(m.maxDrawdown),
    trades: m.trades,
    win_rate: r(m.winRate),
    exposure: r(m.exposure),
    fees: r(m.fees),
    daily_returns: m.dailyReturns.length,
  };
}

async function recordTrial(
  trx: Transaction<BotsDatabase>,
  t: { botId: string; version: number; specHash: string; family: string; params: Record<string, unknown>; dataSource: string; metrics: RunMetrics },
): Promise<void> {
  const trialId = randomUUID();
  const returns = [...t.metrics.dailyReturns];
  await trx
    .insertInto("trial_ledger")
    .values({ trial_id: trialId, bot_id: t.botId, version: t.version, spec_hash: t.specHash, strategy_family: t.family, parameters: JSON.stringify(t.params), data_source: t.dataSource, daily_returns: JSON.stringify(returns), sharpe: t.metrics.sharpe })
    .execute();
  const ev = create(TrialRecordedSchema, { trialId, botId: t.botId, version: t.version, specHash: t.specHash, strategyFamily: t.family, parametersJson: JSON.stringify(t.params), dataSource: t.dataSource, dailyReturns: returns, sharpe: t.metrics.sharpe });
  await enqueueEvent(trx as unknown as Transaction<any>, SCHEMA, { subject: "svc.bots.trial_recorded", type: TrialRecordedSchema.typeName, payload: toBinary(TrialRecordedSchema, ev) });
}

const STATUS: Record<DeploymentRow["status"], DeploymentStatus> = {
  pending: DeploymentStatus.PENDING,
  running: DeploymentStatus.RUNNING,
  success: DeploymentStatus.SUCCESS,
  failed: DeploymentStatus.FAILED,
  halted: DeploymentStatus.HALTED,
};
const TARGET: Record<DeploymentRow["target"], DeploymentTarget> = { backtest: DeploymentTarget.BACKTEST, paper: DeploymentTarget.PAPER, k8s: DeploymentTarget.K8S };

export function rowToDeployment(row: DeploymentRow): BotDeployment {
  return create(BotDeploymentSchema, {
    id: row.id,
    target: TARGET[row.target],
    status: STATUS[row.status],
    taskId: row.task_id,
    resultSummary: (row.result_summary ?? (row.error ? { error: row.error } : undefined)) as JsonObject | undefined,
    version: row.version,
    createdAt: timestampFromDate(new Date(row.created_at)),
    updatedAt: timestampFromDate(new Date(row.updated_at)),
  });
}
