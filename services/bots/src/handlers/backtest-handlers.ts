import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import type { Logger } from "@svc/lib/telemetry";
import {
  BotsService,
  type BotSpec,
  ListBotDeploymentsResponseSchema,
  StrategyLanguage,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { auditOriginOf } from "@svc/lib/audit";
import { wakeOutboxRelays } from "@svc/lib/bus";
import { Code, isStoreOutage, svcError } from "@svc/lib/errors";
import {
  EngineInputError,
  engineSettingsFrom,
  checkBars,
  resolveStrategy,
  type EngineSettings,
  type DatasetSource,
  type SourceOptions,
} from "../engine/index.js";
import { recordWorkloadRun, RUNNER_ORIGIN } from "../audit/workload-run.js";
import { TaskCancelled, type TaskRunner } from "../runtime/task-runner.js";
import type { BacktestPool, RunEnd } from "../runtime/backtest-pool.js";
import type { RunJob, WorkerError } from "../runtime/backtest-messages.js";
import { strategyLogsJson } from "../runtime/backtest-record.js";
import { BOTS_SCHEMA, recordFinishedRun, type RunIdentity } from "../runtime/record-run.js";
import * as backtests from "../store/backtests.repository.js";
import {
  enqueueBacktest,
  queuePositions,
  requeueBacktest,
} from "../store/backtest-queue.repository.js";
import * as repo from "../store/bots.repository.js";
import type { BotsDatabase, DeploymentRow } from "../store/bots.table.js";
import { DEPLOYMENT_KEYS, listDeployments } from "../store/deployments.repository.js";
import { decodePageToken, pageOf, pageSize } from "@svc/lib/paging";
import { sandboxLimitsFromEnv } from "../sandbox/index.js";
import { findStrategyBundle, findStrategySourceMap } from "../store/strategy-code.repository.js";
import { storedToSpec } from "./bot-mapping.js";
import { botNotFound, engineInputRefused } from "./bot-errors.js";
import { rowToDeployment } from "./deployment-mapping.js";
import type { RiskLimits } from "../execution/risk-controls/index.js";
import { riskLimitsOf } from "../runtime/risk-limits-of.js";
import {
  defaultDataSource,
  portfolioEngine,
  portfolioSource,
  runSource,
} from "../runtime/run-source.js";
import { isPortfolio, partOptions } from "../engine/portfolio/portfolio-source.js";
import { insertFailedRunLogs } from "../store/backtest-results.repository.js";
import { modelDigestsOf } from "../models/accept-models.js";
import { modelLimitsFromEnv } from "../models/model-host.js";
import { modelBytes } from "../store/models.repository.js";

/** How often a run in progress looks whether it was halted here (an in-memory look). */
const CANCEL_LOOK_MS = 50;
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const NO_DATASETS: DatasetSource = {
  describe: async () => undefined,
  chunks: async function* () {},
};
/** How often a long run reads its row between slices, for a halt or takeover by another process. */
const LOOK_EVERY_MS = 1_000;

type Handlers = Pick<ServiceImpl<typeof BotsService>, "backtestBot" | "listBotDeployments">;

export interface BacktestDeps {
  db: Kysely<BotsDatabase>;
  tasks: TaskRunner;
  /** This process's name on the rows of the backtests it runs (their lease). */
  hostId: string;
  /** The worker threads that run the computation (SVC_BACKTEST_WORKERS of them at most). */
  pool: BacktestPool;
  /** Where a finished backtest is logged (at info, with its ids). */
  log?: Pick<Logger, "info">;
}

/** What the request path adds: the queue's bound and a nudge to the workers. */
export interface BacktestRouteDeps extends BacktestDeps {
  /** Accepted backtests that may wait for a worker (SVC_BACKTEST_QUEUE_MAX). */
  queueMax: number;
  /** Lets a free worker of this process claim what was just queued (backtest-queue.ts). */
  pump(): Promise<void>;
}

/** Seconds a refused submission is told to wait: a few runs' time, not a guess at the whole queue. */
const QUEUE_FULL_RETRY_AFTER_S = 5;

/**
 * What a run executes: a built-in family, or the version's strategy code (its bundle, loaded
 * here on the main thread by the version's bundle digest, runs sandboxed on the worker). `name`
 * is what the trial records as its strategy: the family's name, or "code:" and the source digest.
 */
type RunStrategy =
  | { name: string; params: Record<string, unknown>; family: ResolvedFamily; code?: undefined }
  | {
      name: string;
      params: Record<string, unknown>;
      family?: undefined;
      code: {
        bundle: string;
        language?: "python";
        sourceMap?: string;
        models?: { name: string; digest: string; bytes: Uint8Array }[];
      };
    };
type ResolvedFamily = ReturnType<typeof resolveStrategy>["family"];

/** A checked backtest, ready to run: everything comes from its deployment row and bot version. */
interface Run {
  id: string;
  taskId: string;
  botId: string;
  version: number;
  specHash: string;
  strategy: RunStrategy;
  settings: EngineSettings;
  /** Where the bars come from; the run streams them, they never sit in memory whole. */
  bars: { dataSource: string; startMs?: number; endMs?: number; opts: SourceOptions };
  dataSource: string;
  /** The risk controls of the order path, the same a paper session of the bot runs. */
  risk: RiskLimits;
  /** Bars in the range, counted when the backtest was checked: its progress's total. */
  barsTotal: number;
  /** The symbol traded, named in its trades. */
  symbol: string;
  /** A sweep's run: its sweep, announced with its trial. */
  sweepId?: string;
  /** A portfolio's run (its universe's data sets and engine), or one symbol's. */
  portfolio?: RunJob["portfolio"];
}

/**
 * Backtests: the request checks everything a person could get wrong (bot, version, strategy,
 * parameters, data, range) and answers at once with a pending BotDeployment, queued (its
 * position in its progress), or refuses it up front when the queue is full; a worker of any
 * process claims it from the queue (runtime/backtest-queue.ts) and the run goes
 * pending -> running -> success | failed (| halted), and a success is recorded as a trial in the
 * TrialLedger (and announced) in the same transaction as the result. The claimed row carries its
 * process's lease, so that it goes back in the queue if that process dies
 * (runtime/backtest-recovery.ts).
 */
export function createBacktestHandlers(deps: BacktestRouteDeps): Handlers {
  const { db } = deps;
  return {
    async backtestBot(req, ctx) {
      const bot = await repo.findBot(db, req.botRef);
      if (!bot) throw botNotFound(req.botRef);
      if (bot.status === "archived")
        throw svcError(
          Code.FailedPrecondition,
          "bot_archived",
          `bot "${bot.slug}" is archived; restore it to draft before backtesting it`,
          { status: "archived" },
        );
      const version = req.version || bot.current_version;
      const versionRow = await repo.findVersion(db, bot.id, version);
      if (!versionRow)
        throw svcError(
          Code.NotFound,
          "version_not_found",
          `bot "${bot.slug}" has no version ${version}; it has 1 to ${bot.current_version}`,
          { field: "version" },
        );
      const spec = storedToSpec(versionRow.spec);
      const dataSource = req.dataSource || defaultDataSource(spec);
      const start = req.start ? timestampDate(req.start) : null;
      const end = req.end ? timestampDate(req.end) : null;
      let inputs: Awaited<ReturnType<typeof loadInputs>>;
      try {
        inputs = await loadInputs(
          db,
          spec,
          versionRow.bundle_digest,
          `version ${version} of bot "${bot.slug}"`,
          dataSource,
          start,
          end,
        );
      } catch (err) {
        if (err instanceof EngineInputError) throw engineInputRefused(err);
        throw err;
      }
      // Checked now, so that a run that cannot start is refused, never queued to fail later.
      try {
        engineSettingsFrom(spec.engine);
      } catch (err) {
        if (err instanceof EngineInputError) throw engineInputRefused(err, "engine");
        throw err;
      }
      const queued = await enqueueBacktest(
        db,
        {
          botId: bot.id,
          version,
          request: { data_source: dataSource, start, end },
          barsTotal: inputs.barsTotal,
        },
        deps.queueMax,
        // Who asked for which version, recorded with the row that queues it.
        (trx, row) =>
          recordWorkloadRun(trx, auditOriginOf(ctx), {
            workload: "backtest",
            op: "start",
            outcome: "succeeded",
            taskId: row.task_id,
            bot: { id: bot.id, version },
            details: { data_source: dataSource },
          }),
      );
      if ("full" in queued)
        throw svcError(
          Code.ResourceExhausted,
          "backtest_queue_full",
          `${queued.queued} accepted backtests already wait for a worker, the most the queue holds (SVC_BACKTEST_QUEUE_MAX); nothing was recorded: send this one again in a few seconds`,
          {
            limit: "SVC_BACKTEST_QUEUE_MAX",
            queued: queued.queued,
            retry_after_s: QUEUE_FULL_RETRY_AFTER_S,
          },
          { headers: { "retry-after": String(QUEUE_FULL_RETRY_AFTER_S) } },
        );
      void deps.pump();
      return rowToDeployment(queued.row, queued.position);
    },

    async listBotDeployments(req) {
      const size = pageSize(req.limit);
      const bot = await repo.findBot(db, req.botRef);
      if (!bot) throw botNotFound(req.botRef);
      const list = { list: "bot_deployments", filters: { bot: bot.id }, keys: DEPLOYMENT_KEYS };
      const before = decodePageToken(list, req.pageToken);
      const rows = await listDeployments(db, bot.id, { limit: size + 1, before });
      const page = pageOf(rows, size, list, (r) => [r.created_key, r.id]);
      const waiting = page.items.filter((r) => r.status === "pending" && r.host === null);
      const positions = await queuePositions(
        db,
        waiting.map((r) => r.id),
      );
      return create(ListBotDeploymentsResponseSchema, {
        items: page.items.map((r) => rowToDeployment(r, positions.get(r.id))),
        nextPageToken: page.nextPageToken,
      });
    },
  };
}

/** Strategy and bars of a run; throws EngineInputError for what a person got wrong. */
async function loadInputs(
  db: Kysely<BotsDatabase>,
  spec: BotSpec,
  bundleDigest: string | null,
  what: string,
  dataSource: string,
  start: Date | null,
  end: Date | null,
  /** The count taken when the backtest was accepted: a claimed run does not read its bars twice. */
  counted?: number,
): Promise<Pick<Run, "strategy" | "bars" | "barsTotal" | "symbol" | "portfolio">> {
  const strategy = await runStrategy(db, spec, bundleDigest, what);
  if (isPortfolio(spec.universe?.symbols, dataSource))
    return portfolioInputs(db, spec, strategy, dataSource, start, end, counted);
  const { opts, symbol } = await runSource(db, spec, dataSource);
  const bars = { dataSource, startMs: start?.getTime(), endMs: end?.getTime(), opts };
  const barsTotal = counted ?? (await checkBars(bars.dataSource, bars.startMs, bars.endMs, opts));
  return { strategy, bars, barsTotal, symbol };
}

/**
 * A portfolio's inputs (a universe of several symbols, or several data sets): every symbol's
 * data set found and counted now, so a universe its data does not cover is refused up front.
 */
async function portfolioInputs(
  db: Kysely<BotsDatabase>,
  spec: BotSpec,
  strategy: RunStrategy,
  dataSource: string,
  start: Date | null,
  end: Date | null,
  counted?: number,
): Promise<Pick<Run, "strategy" | "bars" | "barsTotal" | "symbol" | "portfolio">> {
  if (strategy.code?.language === "python")
    throw new EngineInputError(
      "invalid_parameter",
      "a Python strategy trades one symbol for now; a universe of several symbols needs a TypeScript strategy or a built-in family",
      "universe.symbols",
    );
  const { opts, parts } = await portfolioSource(db, spec, dataSource);
  const bars = { dataSource, startMs: start?.getTime(), endMs: end?.getTime(), opts };
  let barsTotal = counted ?? 0;
  if (counted === undefined)
    for (const part of parts) {
      try {
        barsTotal += await checkBars(
          part.source,
          bars.startMs,
          bars.endMs,
          partOptions(part, opts),
        );
      } catch (err) {
        if (err instanceof EngineInputError && err.code === "empty_data")
          throw new EngineInputError(
            "empty_data",
            `${part.symbol} (${part.source}): ${err.message}`,
            err.field,
          );
        throw err;
      }
    }
  return {
    strategy,
    bars,
    barsTotal,
    symbol: parts.map((p) => p.symbol).join(","),
    portfolio: { parts, ...portfolioEngine(spec) },
  };
}

/** The run's strategy: the spec's family, resolved, or its code's bundle from the store. */
async function runStrategy(
  db: Kysely<BotsDatabase>,
  spec: BotSpec,
  bundleDigest: string | null,
  what: string,
): Promise<RunStrategy> {
  const parameters = (spec.strategy?.parameters ?? {}) as Record<string, unknown>;
  const code = spec.strategy?.code;
  if (code) {
    const bundle = bundleDigest ? await findStrategyBundle(db, bundleDigest) : undefined;
    // A version is written with its bundle in one transaction: one missing is the store's fault.
    if (bundle === undefined)
      throw new Error(`${what}: the bundle of its strategy code (${bundleDigest}) is not stored`);
    const language =
      code.language === StrategyLanguage.PYTHON ? { language: "python" as const } : {};
    // A failure's stack is mapped back to the uploaded files with the map kept beside the bundle.
    const sourceMap = await findStrategySourceMap(db, bundleDigest!);
    const digests = modelDigestsOf(spec);
    const names = Object.keys(digests);
    const bytes = await modelBytes(db, Object.values(digests));
    // A digest whose bytes are missing goes with none: the run fails on the digest's check.
    const models = names.map((name) => ({
      name,
      digest: digests[name]!,
      bytes: new Uint8Array(bytes.get(digests[name]!) ?? []),
    }));
    return {
      name: `code:${code.digest}`,
      params: parameters,
      code: {
        bundle,
        ...language,
        ...(sourceMap ? { sourceMap } : {}),
        ...(models.length ? { models } : {}),
      },
    };
  }
  if (!spec.strategy?.family)
    throw new EngineInputError(
      "invalid_parameter",
      `${what} has no strategy; set strategy.family or strategy.code in its spec`,
      "strategy.family",
    );
  const { family, params } = resolveStrategy(spec.strategy.family, parameters);
  return { name: family.family, params, family };
}

/**
 * Runs a backtest this process just claimed from the queue (accepted here or elsewhere, or put
 * back by a process that died: then from scratch). Its inputs are loaded again from its row and
 * bot version; inputs that no longer load end it failed; any other error is the caller's to handle.
 */
export async function runClaimedBacktest(deps: BacktestDeps, row: DeploymentRow): Promise<void> {
  const versionRow = await repo.findVersion(deps.db, row.bot_id, row.version);
  if (!versionRow) {
    await failDeployment(
      deps.db,
      deps.hostId,
      row.task_id,
      new Error(`version ${row.version} of its bot no longer exists`),
    );
    return;
  }
  const spec = storedToSpec(versionRow.spec);
  const request = row.request as {
    data_source?: string;
    start?: string | null;
    end?: string | null;
    /** A sweep's combination: the whole parameters it runs instead of the version's. */
    params?: JsonObject;
  };
  if (request.params && spec.strategy) spec.strategy.parameters = request.params;
  const dataSource = request.data_source || defaultDataSource(spec);
  const date = (iso: string | null | undefined) => (iso ? new Date(iso) : null);
  let run: Run;
  try {
    const inputs = await loadInputs(
      deps.db,
      spec,
      versionRow.bundle_digest,
      `version ${row.version}`,
      dataSource,
      date(request.start),
      date(request.end),
      row.bars_total === null ? undefined : Number(row.bars_total),
    );
    run = {
      id: row.id,
      taskId: row.task_id,
      botId: row.bot_id,
      version: row.version,
      specHash: versionRow.spec_hash,
      sweepId: row.sweep_id ?? undefined,
      ...inputs,
      settings: engineSettingsFrom(spec.engine),
      dataSource,
      risk: await riskLimitsOf(
        deps.db,
        spec,
        (await repo.findBot(deps.db, row.bot_id))?.fleet ?? null,
      ),
    };
  } catch (err) {
    if (!(err instanceof EngineInputError)) throw err;
    await failDeployment(deps.db, deps.hostId, row.task_id, err);
    return;
  }
  submitRun(deps, run);
}

function submitRun(deps: BacktestDeps, run: Run): void {
  deps.tasks.submit(run.taskId, async () => {
    // Halted or taken over before it started: the row is no longer this process's to run.
    if (!(await backtests.markBacktestRunning(deps.db, run.id, deps.hostId, run.barsTotal))) return;
    const end = await simulate(deps, run);
    if (!end) return;
    let headline: { recorded: boolean; bars: number; trades: number; totalReturn: number };
    if ("finished" in end) {
      const { metrics } = end.finished;
      headline = {
        recorded: await recordFinishedRun(deps.db, identityOf(deps, run), end.finished),
        ...metrics,
      };
    } else {
      headline = end.written;
      // Its worker wrote the trial's event on a connection of its own: the relay is told here.
      if (headline.recorded) wakeOutboxRelays(BOTS_SCHEMA);
    }
    if (headline.recorded)
      deps.log?.info(
        {
          deployment_id: run.id,
          task_id: run.taskId,
          bot_id: run.botId,
          version: run.version,
          data_source: run.dataSource,
          bars: headline.bars,
          trades: headline.trades,
          total_return: headline.totalReturn,
        },
        "backtest finished",
      );
  });
}

/** What the run's result and trial are written under, on whichever thread writes them. */
function identityOf(deps: BacktestDeps, run: Run): RunIdentity {
  return {
    id: run.id,
    taskId: run.taskId,
    hostId: deps.hostId,
    botId: run.botId,
    version: run.version,
    specHash: run.specHash,
    strategyName: run.strategy.name,
    params: run.strategy.params,
    dataSource: run.dataSource,
    symbol: run.symbol,
    ...(run.sweepId ? { sweepId: run.sweepId } : {}),
  };
}

/**
 * The metrics of the whole run, or undefined when the row was halted or taken over meanwhile.
 * The computation runs on a worker thread (backtest-pool.ts); this thread keeps the run's I/O:
 * the look for a halt, the progress write that is also the look for a takeover, an uploaded data
 * set's chunks. A run stopped here is told to stop there at its next slice.
 */
async function simulate(deps: BacktestDeps, run: Run): Promise<RunEnd | undefined> {
  const { dataSource, startMs, endMs, opts } = run.bars;
  const job = deps.pool.run(
    {
      family: run.strategy.name,
      params: run.strategy.params,
      ...(run.strategy.code
        ? {
            code: {
              ...run.strategy.code,
              limits: sandboxLimitsFromEnv(),
              ...(run.strategy.code.models ? { modelLimits: modelLimitsFromEnv() } : {}),
            },
          }
        : {}),
      settings: run.settings,
      risk: run.risk,
      symbol: run.symbol,
      ...(run.portfolio ? { portfolio: run.portfolio } : {}),
      bars: { dataSource, startMs, endMs, timeframe: opts.timeframe, resampleMs: opts.resampleMs },
      // On Postgres the worker writes the result on its own connection, off this event loop.
      ...(deps.pool.writes ? { record: identityOf(deps, run) } : {}),
    },
    symbolOf(opts.datasets ?? NO_DATASETS, opts.symbol),
  );
  let lookedAt = Date.now();
  let settled = false;
  void job.outcome.then(
    () => (settled = true),
    () => (settled = true),
  );
  try {
    while (!settled) {
      await Promise.race([job.outcome, delay(CANCEL_LOOK_MS)]);
      if (settled) break;
      if (deps.tasks.cancelled(run.taskId)) throw new TaskCancelled();
      // At most once a second: the progress write is also the look for a halt or a takeover.
      if (Date.now() - lookedAt < LOOK_EVERY_MS) continue;
      if (!(await backtests.reportBacktestProgress(deps.db, run.id, deps.hostId, job.done())))
        return undefined;
      lookedAt = Date.now();
    }
    return await job.outcome;
  } finally {
    // Halted, taken over or failed here: the worker stops too (a no-op once it has finished).
    job.stop();
  }
}

/**
 * Marks a task failed with the reason (halted when it was cancelled); used by the task runner for
 * any error of a run. Only a row still live and held here: a halt or a takeover decided already.
 * A store that could not serve now (the pool had no connection for the run within its deadline,
 * the database restarting) is no fault of the backtest: it goes back in the queue instead, its
 * start not counted, and runs again once a worker is free. Returns what became of it.
 */
export async function failDeployment(
  db: Kysely<BotsDatabase>,
  hostId: string,
  taskId: string,
  err: unknown,
): Promise<"requeued" | "ended"> {
  if (isStoreOutage(err) && (await requeueBacktest(db, taskId, hostId))) return "requeued";
  const status = err instanceof TaskCancelled ? "halted" : "failed";
  const message = (err as Error)?.message ?? String(err);
  const logs = (err as { strategyLogs?: WorkerError["strategyLogs"] } | undefined)?.strategyLogs;
  // The write that ends it, its workload_run stop entry, and the strategy's lines before a
  // failure are one transaction.
  await db.transaction().execute(async (trx) => {
    const ended = await backtests.endBacktest(trx, hostId, taskId, status, message);
    if (!ended) return;
    await recordWorkloadRun(trx, RUNNER_ORIGIN, {
      workload: "backtest",
      op: "stop",
      outcome: status === "halted" ? "succeeded" : "failed",
      taskId,
      bot: { id: ended.bot_id, version: ended.version },
      reason: `${status}: ${message}`,
    });
    if (status === "failed" && logs)
      await insertFailedRunLogs(trx, {
        deploymentId: ended.id,
        logsJson: strategyLogsJson(logs.lines),
        dropped: logs.dropped,
      });
  });
  return "ended";
}

/** The data sets as the worker reads them: a data set of several symbols gives the run's one. */
function symbolOf(datasets: DatasetSource, symbol: string | undefined): DatasetSource {
  return symbol
    ? {
        describe: (name) => datasets.describe(name),
        chunks: (name) => datasets.chunks(name, symbol),
      }
    : datasets;
}
