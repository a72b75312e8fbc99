import { create, toJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema, timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import { auditOriginOf } from "@svc/lib/audit";
import { Code, svcError } from "@svc/lib/errors";
import { decodePageToken, pageOf, pageSize } from "@svc/lib/paging";
import {
  BotsService,
  ListSweepsResponseSchema,
  SweepMode,
  SweepParameterSchema,
  SweepResultSchema,
  SweepSchema,
  WalkForwardFoldSchema,
  WalkForwardSummarySchema,
  type CreateSweepRequest,
  type Sweep,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { recordWorkloadRun } from "../audit/workload-run.js";
import { EngineInputError, checkBars, engineSettingsFrom } from "../engine/index.js";
import { LIVE_BACKTEST_STATES } from "../domain/deployment-status.js";
import { canonicalJson } from "../domain/canonical-json.js";
import { defaultDataSource, runSource } from "../runtime/run-source.js";
import type { TaskRunner } from "../runtime/task-runner.js";
import * as repo from "../store/bots.repository.js";
import type { BotsDatabase } from "../store/bots.table.js";
import {
  cancelSweep,
  createSweep,
  findSweep,
  findSweepByKey,
  listSweeps,
  sweepRuns,
  sweepStatusCounts,
  SWEEP_KEYS,
  type SweepRow,
  type SweepRun,
} from "../store/sweeps.repository.js";
import { versionParams } from "../sweeps/declared-params.js";
import { planSweep, SweepInputError, type SweepParameterInput } from "../sweeps/sweep-plan.js";
import { layOutRuns } from "../sweeps/sweep-runs.js";
import {
  bestRun,
  metricOf,
  SELECTION_METRICS,
  SORTABLE_METRICS,
  sortRuns,
  walkForwardSummary,
} from "../sweeps/sweep-results.js";
import { figuresOf, type StoredSweepRequest } from "../sweeps/walk-forward.js";
import { storedToSpec } from "./bot-mapping.js";
import { botNotFound, engineInputRefused } from "./bot-errors.js";

type Handlers = Pick<
  ServiceImpl<typeof BotsService>,
  "createSweep" | "listSweeps" | "getSweep" | "cancelSweep"
>;

export interface SweepDeps {
  db: Kysely<BotsDatabase>;
  tasks: TaskRunner;
  /** Accepted backtests that may wait for a worker (SVC_BACKTEST_QUEUE_MAX): a sweep's runs count. */
  queueMax: number;
  /** Most backtests one sweep may run (SVC_SWEEP_MAX_COMBINATIONS). */
  maxRuns: number;
  /** Lets a free worker of this process claim what was just queued. */
  pump(): Promise<void>;
}

const QUEUE_FULL_RETRY_AFTER_S = 5;
const DEFAULT_IN_SAMPLE_SEGMENTS = 3;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Parameter sweeps (docs/sweeps.md): the request is checked whole against the version's declared
 * parameters and the sweep's bound, then every combination is queued as an ordinary backtest of
 * the backtest queue (so any process's workers share it, fairly with other bots, and a process
 * that dies hands its runs back: each ends once and is one trial). A walk-forward's out-of-sample
 * runs are queued as its folds' in-sample runs end (sweeps/walk-forward.ts).
 */
export function createSweepHandlers(deps: SweepDeps): Handlers {
  const { db } = deps;
  const botOf = async (ref: string) => {
    const bot = await repo.findBot(db, ref);
    if (!bot) throw botNotFound(ref);
    return bot;
  };
  const sweepOf = async (botId: string, id: string) => {
    const sweep = UUID.test(id) ? await findSweep(db, botId, id) : undefined;
    if (!sweep)
      throw svcError(
        Code.NotFound,
        "sweep_not_found",
        `the bot has no sweep ${JSON.stringify(id)}`,
        {
          sweep_id: id,
        },
      );
    return sweep;
  };
  return {
    async createSweep(req, ctx) {
      const bot = await botOf(req.botRef);
      if (bot.status === "archived")
        throw svcError(
          Code.FailedPrecondition,
          "bot_archived",
          `bot "${bot.slug}" is archived; restore it to draft before sweeping it`,
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
      const stored = storedRequest(req, version, defaultDataSource(spec));
      // A retry answers at once: its sweep was checked and queued when it was created.
      const retried = await findSweepByKey(db, bot.id, req.requestKey);
      if (retried) return answerRetry(db, retried, stored, req.requestKey);
      let plan: ReturnType<typeof planSweep>;
      let runs: SweepRun[];
      let folds: Array<{ is_start: string; is_end: string; oos_end: string }> = [];
      try {
        engineSettingsFrom(spec.engine);
        const { opts, symbol } = await runSource(db, spec, stored.data_source);
        const startMs = stored.start ? Date.parse(stored.start) : undefined;
        const endMs = stored.end ? Date.parse(stored.end) : undefined;
        const barsTotal = await checkBars(stored.data_source, startMs, endMs, opts);
        stored.bars_total = barsTotal;
        const params = await versionParams(db, spec, versionRow.bundle_digest, symbol);
        const foldCount = stored.walk_forward.folds;
        const maxCombinations = foldCount
          ? Math.floor((deps.maxRuns - foldCount) / foldCount)
          : deps.maxRuns;
        plan = planSweep({
          mode: stored.mode,
          parameters: stored.parameters,
          samples: stored.samples,
          seed: stored.seed,
          declared: params.declared,
          base: params.base,
          check: params.check,
          maxCombinations: Math.max(0, maxCombinations),
          bound: foldCount
            ? `SVC_SWEEP_MAX_COMBINATIONS ${deps.maxRuns} runs over ${foldCount} walk-forward folds, each with its out-of-sample run`
            : "SVC_SWEEP_MAX_COMBINATIONS",
        });
        ({ runs, folds } = layOutRuns({
          combinations: plan.combinations,
          dataSource: stored.data_source,
          start: stored.start,
          end: stored.end,
          barsTotal,
          walkForward: {
            folds: foldCount,
            inSampleSegments: stored.walk_forward.in_sample_segments,
          },
        }));
      } catch (err) {
        if (err instanceof SweepInputError)
          throw svcError(Code.InvalidArgument, err.code, err.message, {
            field: err.field,
            ...err.details,
          });
        if (err instanceof EngineInputError) throw engineInputRefused(err);
        throw err;
      }
      const created = await createSweep(
        db,
        {
          botId: bot.id,
          version,
          requestKey: req.requestKey,
          request: stored as unknown as Record<string, unknown>,
          combinations: plan.combinations,
          skipped: plan.skipped,
          folds,
        },
        runs,
        folds.length,
        deps.queueMax,
        // One start entry for the sweep: who asked, which version, how many backtests it queues;
        // each of its backtests writes its own stop entry, naming the sweep.
        (trx, sweep, count) =>
          recordWorkloadRun(trx, auditOriginOf(ctx), {
            workload: "backtest",
            op: "start",
            outcome: "succeeded",
            taskId: `sweep-${sweep.id}`,
            bot: { id: bot.id, version },
            details: { sweep_id: sweep.id, runs: count },
          }),
      );
      if ("full" in created)
        throw svcError(
          Code.ResourceExhausted,
          "backtest_queue_full",
          `the sweep needs ${created.runs} backtests and ${created.queued} already wait for a worker, of the ${deps.queueMax} the queue holds (SVC_BACKTEST_QUEUE_MAX); nothing was recorded: send it again once the queue has drained, or sweep fewer combinations`,
          {
            limit: "SVC_BACKTEST_QUEUE_MAX",
            queued: created.queued,
            runs: created.runs,
            retry_after_s: QUEUE_FULL_RETRY_AFTER_S,
          },
          { headers: { "retry-after": String(QUEUE_FULL_RETRY_AFTER_S) } },
        );
      if (!created.created) return answerRetry(db, created.sweep, stored, req.requestKey);
      void deps.pump();
      return present(db, created.sweep, { results: false });
    },

    async listSweeps(req) {
      const bot = await botOf(req.botRef);
      const size = pageSize(req.limit);
      const list = { list: "bot_sweeps", filters: { bot: bot.id }, keys: SWEEP_KEYS };
      const before = decodePageToken(list, req.pageToken);
      const rows = await listSweeps(db, bot.id, { limit: size + 1, before });
      const page = pageOf(rows, size, list, (r) => [r.created_key, r.id]);
      const counts = await sweepStatusCounts(
        db,
        page.items.map((r) => r.id),
      );
      return create(ListSweepsResponseSchema, {
        items: page.items.map((r) => summaryOf(r, counts.get(r.id) ?? {})),
        nextPageToken: page.nextPageToken,
      });
    },

    async getSweep(req) {
      const bot = await botOf(req.botRef);
      const sortBy = req.sortBy || "sharpe";
      if (!(SORTABLE_METRICS as readonly string[]).includes(sortBy))
        throw svcError(
          Code.InvalidArgument,
          "invalid_argument",
          `sort_by ${JSON.stringify(sortBy)} is not a metric of the results; one of ${SORTABLE_METRICS.join(", ")}`,
          { field: "sort_by" },
        );
      const sweep = await sweepOf(bot.id, req.sweepId);
      return present(db, sweep, { results: true, sortBy, ascending: req.ascending });
    },

    async cancelSweep(req) {
      const bot = await botOf(req.botRef);
      const sweep = await sweepOf(bot.id, req.sweepId);
      deps.tasks.cancel(await cancelSweep(db, sweep.id));
      return present(db, (await findSweep(db, bot.id, sweep.id))!, { results: false });
    },
  };
}

/** The sweep a request key already names, if the request is the same; 409 otherwise. */
function answerRetry(
  db: Kysely<BotsDatabase>,
  sweep: SweepRow,
  asked: StoredRequest,
  key: string,
): Promise<Sweep> {
  if (!sameRequest(sweep, asked))
    throw svcError(
      Code.AlreadyExists,
      "request_key_reused",
      `request_key ${JSON.stringify(key)} already names another sweep of this bot (${sweep.id}); use a new key for a different sweep`,
      { field: "request_key", sweep_id: sweep.id },
    );
  return present(db, sweep, { results: false });
}

/** The request as checked and stored: what a retry with the same key must match. */
interface StoredRequest extends StoredSweepRequest {
  version: number;
  mode: "grid" | "random";
  parameters: SweepParameterInput[];
  samples: number;
  seed: number;
  start: string;
  end: string;
  walk_forward: { folds: number; in_sample_segments: number };
}

function storedRequest(req: CreateSweepRequest, version: number, fallback: string): StoredRequest {
  const folds = req.walkForward?.folds ?? 0;
  const metric = req.metric || "sharpe";
  if (!(SELECTION_METRICS as readonly string[]).includes(metric))
    throw svcError(
      Code.InvalidArgument,
      "invalid_argument",
      `metric ${JSON.stringify(metric)} cannot pick a winner; one of ${SELECTION_METRICS.join(", ")}`,
      { field: "metric" },
    );
  const start = req.start ? timestampDate(req.start).toISOString() : "";
  const end = req.end ? timestampDate(req.end).toISOString() : "";
  if (folds > 0 && (!start || !end))
    throw svcError(
      Code.InvalidArgument,
      "invalid_argument",
      "a walk-forward needs start and end: the range its folds are cut from",
      { field: start ? "end" : "start" },
    );
  return {
    version,
    mode: req.mode === SweepMode.RANDOM ? "random" : "grid",
    parameters: req.parameters.map((p) => ({
      name: p.name,
      values: p.values.map((v) => toJson(ValueSchema, v)),
      ...(p.min === undefined ? {} : { min: p.min }),
      ...(p.max === undefined ? {} : { max: p.max }),
      ...(p.step === undefined ? {} : { step: p.step }),
    })),
    samples: req.samples,
    seed: req.seed,
    data_source: req.dataSource || fallback,
    start,
    end,
    metric,
    bars_total: 0,
    walk_forward: {
      folds,
      in_sample_segments: folds
        ? req.walkForward?.inSampleSegments || DEFAULT_IN_SAMPLE_SEGMENTS
        : 0,
    },
  };
}

/** A retry names the same sweep when it asks for the same thing (the data's count aside). */
function sameRequest(sweep: SweepRow, asked: StoredRequest): boolean {
  const { bars_total: _a, ...was } = sweep.request as unknown as StoredRequest;
  const { bars_total: _b, ...now } = asked;
  return canonicalJson(was) === canonicalJson(now);
}

function summaryOf(sweep: SweepRow, counts: Record<string, number>): Sweep {
  const request = sweep.request as unknown as StoredRequest;
  const pending = (counts.pending ?? 0) + (counts.running ?? 0);
  const folds = sweep.folds.length;
  const runsTotal = sweep.combinations.length * Math.max(1, folds) + folds;
  const status = sweep.cancelled_at
    ? "cancelled"
    : pending === 0 && (folds === 0 || sweep.advanced_at !== null)
      ? "done"
      : "running";
  return create(SweepSchema, {
    id: sweep.id,
    requestKey: sweep.request_key,
    version: sweep.version,
    mode: request.mode === "random" ? SweepMode.RANDOM : SweepMode.GRID,
    dataSource: request.data_source,
    combinations: sweep.combinations.length,
    skipped: sweep.skipped,
    runsTotal,
    runsPending: pending,
    runsSucceeded: counts.success ?? 0,
    runsFailed: (counts.failed ?? 0) + (counts.halted ?? 0),
    status,
    createdAt: timestampFromDate(new Date(sweep.created_at)),
    metric: request.metric,
    parameters: request.parameters.map((p) =>
      create(SweepParameterSchema, {
        name: p.name,
        values: p.values.map((v) => valueOf(v as JsonValue)),
        min: p.min,
        max: p.max,
        step: p.step,
      }),
    ),
  });
}

const valueOf = (v: JsonValue) =>
  create(ValueSchema, {
    kind:
      typeof v === "number"
        ? { case: "numberValue", value: v }
        : typeof v === "boolean"
          ? { case: "boolValue", value: v }
          : { case: "stringValue", value: String(v) },
  });

async function present(
  db: Kysely<BotsDatabase>,
  sweep: SweepRow,
  o: { results: false } | { results: true; sortBy: string; ascending: boolean },
): Promise<Sweep> {
  const rows = (await sweepRuns(db, sweep.id)).map(figuresOf);
  const counts: Record<string, number> = {};
  for (const r of rows) counts[r.status] = (counts[r.status] ?? 0) + 1;
  const out = summaryOf(sweep, counts);
  if (!o.results) return out;
  out.results = sortRuns(rows, o.sortBy, o.ascending).map((r) =>
    create(SweepResultSchema, {
      index: r.index ?? -1,
      parameters: ((r.row.request as { params?: JsonObject }).params ?? {}) as JsonObject,
      deploymentId: r.row.id,
      status: r.status,
      fold: r.fold,
      outOfSample: r.index === null,
      ...(r.status === "success" && r.summary ? { metrics: r.summary as JsonObject } : {}),
      error: r.row.error ?? "",
    }),
  );
  if (sweep.folds.length === 0) return out;
  const metric = (sweep.request as unknown as StoredRequest).metric;
  const folds = sweep.folds.map((w, i) => {
    const fold = i + 1;
    const inSample = rows.filter((r) => r.fold === fold && r.index !== null);
    const oos = rows.find((r) => r.fold === fold && r.index === null);
    const settled = !inSample.some((r) =>
      (LIVE_BACKTEST_STATES as readonly string[]).includes(r.status),
    );
    const best = settled ? bestRun(inSample, metric) : undefined;
    const status = !settled
      ? "waiting_in_sample"
      : !best
        ? "no_in_sample_success"
        : !oos || (LIVE_BACKTEST_STATES as readonly string[]).includes(oos.status)
          ? "out_of_sample_pending"
          : oos.status === "success"
            ? "done"
            : "failed";
    return {
      inSample: best ? metricOf(best, metric)! : 0,
      outOfSample: oos,
      proto: create(WalkForwardFoldSchema, {
        fold,
        inSampleStart: timestampFromDate(new Date(w.is_start)),
        inSampleEnd: timestampFromDate(new Date(w.is_end)),
        outOfSampleEnd: timestampFromDate(new Date(w.oos_end)),
        ...(best
          ? {
              chosenParameters: ((best.row.request as { params?: JsonObject }).params ??
                {}) as JsonObject,
              inSampleMetric: metricOf(best, metric)!,
            }
          : {}),
        outOfSampleDeploymentId: oos?.row.id ?? "",
        status,
        ...(oos?.status === "success" && oos.summary
          ? { outOfSampleMetrics: oos.summary as JsonObject }
          : {}),
      }),
    };
  });
  out.folds = folds.map((f) => f.proto);
  const s = walkForwardSummary(folds, metric);
  out.walkForward = create(WalkForwardSummarySchema, s);
  return out;
}
