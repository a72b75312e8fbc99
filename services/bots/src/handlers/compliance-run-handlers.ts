import { create } from "@bufbuild/protobuf";
import { auditOriginOf } from "@svc/lib/audit";
import { recordWorkloadRun } from "../audit/workload-run.js";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  BotsService,
  ComplianceRunKind,
  ListComplianceRunsResponseSchema,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { Code, svcError } from "@svc/lib/errors";
import { decodePageToken, pageOf, pageSize } from "@svc/lib/paging";
import { principalOf } from "@svc/lib/auth";
import {
  EngineInputError,
  engineSettingsFrom,
  loadBars,
  resolveStrategy,
  DEFAULT_DATA_SOURCE,
} from "../engine/index.js";
import type { BotUnderTest } from "../compliance/compliance-case.js";
import { riskLimitsOf } from "../runtime/risk-limits-of.js";
import { oneSymbolOnly } from "../runtime/run-source.js";
import {
  stepsOf,
  submitComplianceRun,
  type ComplianceTask,
} from "../runtime/compliance-run-task.js";
import type { TaskRunner } from "../runtime/task-runner.js";
import * as repo from "../store/bots.repository.js";
import { isForeignKeyViolation } from "@svc/lib/db";
import * as runs from "../store/compliance-runs.repository.js";
import type { BotRow, BotsDatabase } from "../store/bots.table.js";
import { bundleOf, runModelsOf, startCodeHost } from "../runtime/session-strategy.js";
import { storedToSpec } from "./bot-mapping.js";
import { botNotFound, engineInputRefused } from "./bot-errors.js";
import { rowToComplianceRun } from "./compliance-run-mapping.js";

type Handlers = Pick<
  ServiceImpl<typeof BotsService>,
  "startComplianceRun" | "listComplianceRuns" | "getComplianceRun"
>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const KINDS = {
  [ComplianceRunKind.CONFORMANCE]: "conformance",
  [ComplianceRunKind.STRESS]: "stress",
} as const;

/**
 * RTS 6 conformance and stress runs of a bot's current version: the request checks what a
 * person could get wrong (bot, version, strategy, settings, multiple) before any row is
 * written, then the run goes off the request path (runtime/compliance-run-task.ts).
 */
export function createComplianceRunHandlers(deps: {
  db: Kysely<BotsDatabase>;
  tasks: TaskRunner;
  /** This process's name on the runs it holds (see runtime/backtest-recovery.ts). */
  hostId: string;
  /** Runs that may wait here for a worker (SVC_BACKTEST_QUEUE_MAX) before a new one is refused. */
  queueMax: number;
}): Handlers {
  const { db } = deps;
  const botOf = async (ref: string): Promise<BotRow> => {
    if (ref.includes("\0"))
      throw svcError(
        Code.InvalidArgument,
        "invalid_argument",
        "bot_ref must not contain a NUL byte",
        {
          field: "bot_ref",
        },
      );
    const bot = await repo.findBot(db, ref);
    if (!bot) throw botNotFound(ref);
    return bot;
  };
  return {
    async startComplianceRun(req, ctx) {
      const kind = KINDS[req.kind as keyof typeof KINDS];
      if (!kind)
        throw svcError(
          Code.InvalidArgument,
          "invalid_argument",
          "kind must be conformance or stress",
          {
            field: "kind",
          },
        );
      const multiple = req.peakMultiple || 2;
      if (!Number.isFinite(multiple) || multiple < 1 || multiple > 100)
        throw svcError(
          Code.InvalidArgument,
          "invalid_parameter",
          `peak_multiple=${req.peakMultiple} must be between 1 and 100 (RTS 6 Article 10 asks for 2)`,
          { field: "peak_multiple" },
        );
      const bot = await botOf(req.botRef);
      const versionRow =
        bot.current_version > 0
          ? await repo.findVersion(db, bot.id, bot.current_version)
          : undefined;
      if (!versionRow)
        throw svcError(
          Code.FailedPrecondition,
          "version_not_found",
          `bot "${bot.slug}" has no version to test; save its spec first`,
          { field: "version" },
        );
      const spec = storedToSpec(versionRow.spec);
      const what = `version ${versionRow.version} of bot "${bot.slug}"`;
      let task: Omit<ComplianceTask, "id" | "taskId">;
      try {
        const code = spec.strategy?.code;
        if (!spec.strategy?.family && !code)
          throw new EngineInputError(
            "invalid_parameter",
            `${what} has no strategy; set strategy.family or strategy.code in its spec before testing it`,
            "strategy.family",
          );
        // Conformance judges the order path under the bot's limits and costs with orders of its
        // own cases, so code runs it as a family does; stress drives the bot's own strategy, code
        // in a sandbox a lap.
        const strategy = code
          ? undefined
          : resolveStrategy(
              spec.strategy!.family,
              spec.strategy!.parameters as Record<string, unknown> | undefined,
            );
        // A conformance run judges a universe's portfolio (suiteFor); a stress replay drives one
        // symbol's strategy and order path, so it still refuses a universe.
        if (kind === "stress") oneSymbolOnly(spec);
        const settings = engineSettingsFrom(spec.engine);
        const universe = spec.universe?.symbols ?? [];
        const subject: BotUnderTest = {
          slug: bot.slug,
          fleet: bot.fleet,
          symbol: universe[0] ?? "ASSET",
          ...(universe.length > 1 ? { symbols: [...universe] } : {}),
          costs: settings,
          initialCash: settings.initialCash,
          limits: await riskLimitsOf(db, spec, bot.fleet),
        };
        task = { botId: bot.id, kind, bot: subject };
        if (kind === "stress") {
          const bars = await loadBars(DEFAULT_DATA_SOURCE);
          if (code) {
            const bundle = await bundleOf(db, bot.id, versionRow.version);
            // Seeded by the version: a stress run of the same code draws the same numbers.
            const taskId = `stress:${versionRow.spec_hash}`;
            // Each stressed run gets the version's models in a process of its own.
            const newHost = async () => {
              const models = await runModelsOf(db, spec, { record: false });
              return startCodeHost({
                bundle,
                spec,
                symbol: subject.symbol,
                taskId,
                ...(models ? { models } : {}),
              }).catch((err: unknown) => {
                models?.close();
                throw err;
              });
            };
            task.stress = { bars, newHost, multiple };
          } else {
            const newStrategy = () => strategy!.family.create(strategy!.params);
            task.stress = { bars, newStrategy, multiple };
          }
        }
      } catch (err) {
        if (err instanceof EngineInputError) throw engineInputRefused(err);
        throw err;
      }
      // The runs share the backtests' workers; past the queue's bound one is refused up front,
      // never accepted to wait without end.
      if (deps.tasks.waiting() >= deps.queueMax)
        throw svcError(
          Code.ResourceExhausted,
          "backtest_queue_full",
          `${deps.tasks.waiting()} runs already wait for a worker, the most the queue holds (SVC_BACKTEST_QUEUE_MAX); nothing was recorded: start this one again in a few seconds`,
          { limit: "SVC_BACKTEST_QUEUE_MAX", queued: deps.tasks.waiting(), retry_after_s: 5 },
          { headers: { "retry-after": "5" } },
        );
      const requestedBy = req.requestedBy || principalOf(ctx).sub;
      // The row and its workload_run start entry commit together.
      const row = await db
        .transaction()
        .execute(async (trx) => {
          const inserted = await runs.insertComplianceRun(trx, {
            botId: bot.id,
            kind,
            version: versionRow.version,
            versionHash: versionRow.spec_hash,
            peakMultiple: kind === "stress" ? multiple : 0,
            casesTotal: stepsOf(kind),
            requestedBy,
            hostId: deps.hostId,
          });
          await recordWorkloadRun(trx, auditOriginOf(ctx), {
            workload: "compliance_run",
            op: "start",
            outcome: "succeeded",
            taskId: inserted.task_id,
            bot: { id: bot.id, version: versionRow.version },
            details: {
              kind,
              requested_by: requestedBy,
              ...(kind === "stress" ? { peak_multiple: multiple } : {}),
            },
          });
          return inserted;
        })
        .catch((err: unknown) => {
          // The bot was deleted between the read above and this insert (a delete racing the start).
          if (isForeignKeyViolation(err)) throw botNotFound(req.botRef);
          throw err;
        });
      submitComplianceRun(deps, { ...task, id: row.id, taskId: row.task_id });
      return rowToComplianceRun(row, bot.slug);
    },

    async listComplianceRuns(req) {
      const size = pageSize(req.limit);
      const bot = await botOf(req.botRef);
      const kind = KINDS[req.kind as keyof typeof KINDS];
      const filters = { bot: bot.id, kind, year: req.year || undefined };
      const list = { list: "compliance_runs", filters, keys: runs.COMPLIANCE_RUN_KEYS };
      const after = decodePageToken(list, req.pageToken);
      const rows = await runs.listComplianceRuns(db, bot.id, {
        kind,
        year: filters.year,
        limit: size + 1,
        after,
      });
      const page = pageOf(rows, size, list, (r) => [r.created_key, r.id]);
      return create(ListComplianceRunsResponseSchema, {
        items: page.items.map((r) => rowToComplianceRun(r, bot.slug)),
        nextPageToken: page.nextPageToken,
      });
    },

    async getComplianceRun(req) {
      const bot = await botOf(req.botRef);
      const row = UUID.test(req.runId)
        ? await runs.findComplianceRun(db, bot.id, req.runId)
        : undefined;
      if (!row)
        throw svcError(
          Code.NotFound,
          "compliance_run_not_found",
          `bot "${bot.slug}" has no compliance run "${req.runId}"`,
          { run_id: req.runId },
        );
      return rowToComplianceRun(row, bot.slug);
    },
  };
}
