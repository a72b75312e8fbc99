import type { KeyObject } from "node:crypto";
import { auditOriginOf, type AuditOrigin } from "@svc/lib/audit";
import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  BotsService,
  BotEventSchema,
  HaltResultSchema,
  type HaltResult,
  ListStateEventsResponseSchema,
  ReplayBotResponseSchema,
  StateSnapshotSchema,
  DeploymentTarget,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Code, svcError } from "@svc/lib/errors";
import { decodePageToken, pageOf, pageSize } from "@svc/lib/paging";
import type { Logger } from "@svc/lib/telemetry";
import {
  EngineInputError,
  loadBars,
  engineSettingsFrom,
  resolveStrategy,
} from "../engine/index.js";
import { BotRunner } from "../runner/bot-runner.js";
import { EVENT_TYPES, type RunnerEvent, type StoredEvent } from "../runner/events.js";
import { snapshotOf } from "../runner/state.js";
import type { SessionControl } from "../runtime/session-control.js";
import { applyBotResource, type KubeClient } from "../runtime/kubernetes.js";
import type { TaskRunner } from "../runtime/task-runner.js";
import { haltBacktests } from "../runtime/backtest-recovery.js";
import {
  defaultDataSource,
  paperPortfolioOnly,
  portfolioEngine,
  portfolioSource,
  runSource,
} from "../runtime/run-source.js";
import { isPortfolio, loadPortfolioBars } from "../engine/portfolio/portfolio-source.js";
import * as repo from "../store/bots.repository.js";
import { listEvents, stateAsOf, taskEvents } from "../store/events.repository.js";
import type { BotRow, BotsDatabase } from "../store/bots.table.js";
import { assertApprovedPromotion } from "./approved-promotion.js";
import { bundleOf, startCodeHost } from "../runtime/session-strategy.js";
import { StrategyFailure } from "../sandbox/index.js";
import { BOTS_SCHEMA } from "./bots-handlers.js";
import { capitalFor } from "../store/allocations.repository.js";
import {
  findDeployment,
  findPaperSession,
  insertK8sDeployment,
} from "../store/deployments.repository.js";
import { rowToDeployment } from "./deployment-mapping.js";
import type { LiveDeployments } from "../runtime/live-deployments.js";
import type { VenueTarget } from "../store/live-deployments.repository.js";
import { storedToSpec } from "./bot-mapping.js";
import { botNotFound, engineInputRefused } from "./bot-errors.js";
import { canonicalJson } from "../domain/canonical-json.js";
import { riskLimitsFrom } from "../execution/risk-controls/index.js";
import { modelDigestsOf } from "../models/accept-models.js";
import { RecordedModels } from "../models/recorded-models.js";

type Handlers = Pick<
  ServiceImpl<typeof BotsService>,
  | "startPaper"
  | "stopPaper"
  | "haltBot"
  | "haltAllBots"
  | "stopAllPaper"
  | "haltRl"
  | "haltWorkflows"
  | "getStateSnapshot"
  | "listStateEvents"
  | "replayBot"
  | "deployBot"
>;

/**
 * Paper trading, halts, event-sourced state and replay. Paper start and deploy need a valid
 * ApprovedPromotion token, which this service verifies itself.
 */
export function createRuntimeHandlers(deps: {
  db: Kysely<BotsDatabase>;
  sessions: SessionControl;
  tasks: TaskRunner;
  publicKey: KeyObject | undefined;
  kube: KubeClient | undefined;
  /** Where halts are logged (at info: scope, reason, what stopped). */
  log?: Pick<Logger, "info">;
  /** Runners at a venue in this process (targets live and venue_paper); unset: 501. */
  live?: Pick<LiveDeployments, "notConfigured" | "runningTaskOf" | "insert" | "pickUp" | "haltBot">;
  /** Called once a Bot resource is applied: the workload reconciler runs at once, not in 30 s. */
  onBotApplied?: () => void;
}): Handlers {
  const { db, sessions } = deps;
  const halted = (result: HaltResult, reason: string, bot?: string): HaltResult => {
    deps.log?.info(
      { scope: result.scope, bot, reason, halted: result.halted, task_ids: result.taskIds },
      "halted",
    );
    return result;
  };
  const mustFind = async (ref: string): Promise<BotRow> => {
    const bot = await repo.findBot(db, ref);
    if (!bot) throw botNotFound(ref);
    return bot;
  };

  /**
   * A runner at the venue the settings name, in this process: refused with what to set when no
   * venue is configured (never a simulated stand-in), and while the bot already has one.
   */
  const deployAtVenue = async (botRef: string, token: string, target: VenueTarget) => {
    const live = deps.live;
    const unconfigured = live ? live.notConfigured() : "runners at a venue are not hosted here";
    if (!live || unconfigured)
      throw svcError(Code.Unimplemented, "venue_not_configured", unconfigured!, {
        setting: "SVC_LIVE_VENUE",
      });
    const bot = await mustFind(botRef);
    if (bot.status === "archived")
      throw svcError(
        Code.FailedPrecondition,
        "bot_archived",
        `bot "${bot.slug}" is archived; restore it before deploying it`,
        { status: "archived" },
      );
    const spec = storedToSpec(bot.spec);
    if (spec.strategy?.code)
      throw svcError(
        Code.Unimplemented,
        "not_implemented",
        "strategy code is not run by a live runner yet: deploy a bot with a built-in family",
        { field: "strategy.code" },
      );
    if (!spec.universe?.symbols[0])
      throw svcError(
        Code.InvalidArgument,
        "invalid_argument",
        `bot "${bot.slug}" names no symbol in its universe: a runner trades the first one`,
        { field: "universe.symbols" },
      );
    await assertApprovedPromotion({ db, schema: BOTS_SCHEMA, publicKey: deps.publicKey }, token, {
      id: bot.id,
      specHash: bot.spec_hash,
      strategyDigest: spec.strategy?.code?.digest,
      models: modelDigestsOf(spec),
    });
    const running = await live.runningTaskOf(bot.id);
    if (running)
      throw svcError(
        Code.AlreadyExists,
        "session_running",
        `bot "${bot.slug}" already has a runner at the venue ${running}; halt it first`,
        { task_id: running },
      );
    const row = await live.insert(bot, target, token).catch((err: unknown) => {
      // A concurrent deploy of the same bot inserted first (the one-runner index).
      if ((err as { code?: string }).code === "23505")
        throw svcError(
          Code.AlreadyExists,
          "session_running",
          `bot "${bot.slug}" already has a runner at the venue; halt it first`,
          {},
        );
      throw err;
    });
    // The runner starts now, not at the next pass of the pick-up (which stays the fallback).
    void live.pickUp().catch(() => undefined);
    return rowToDeployment(row);
  };

  const startPaper = async (
    botRef: string,
    token: string,
    dataSource: string,
    speed: number,
    origin: AuditOrigin,
  ) => {
    const bot = await mustFind(botRef);
    if (bot.status === "archived")
      throw svcError(
        Code.FailedPrecondition,
        "bot_archived",
        `bot "${bot.slug}" is archived; restore it before trading it`,
        { status: "archived" },
      );
    // Before the token: a universe a session cannot trade is refused whatever was approved.
    try {
      const wanted = storedToSpec(bot.spec);
      paperPortfolioOnly(wanted, dataSource);
      // Which data set holds each symbol is read from the catalog alone: cheap, and a universe its
      // data does not cover is refused as a universe a session cannot trade.
      const from = dataSource || defaultDataSource(wanted);
      if (isPortfolio(wanted.universe?.symbols, from)) await portfolioSource(db, wanted, from);
    } catch (err) {
      if (err instanceof EngineInputError) throw engineInputRefused(err);
      throw err;
    }
    await assertApprovedPromotion({ db, schema: BOTS_SCHEMA, publicKey: deps.publicKey }, token, {
      id: bot.id,
      specHash: bot.spec_hash,
      strategyDigest: storedToSpec(bot.spec).strategy?.code?.digest,
      models: modelDigestsOf(storedToSpec(bot.spec)),
    });
    const running = await sessions.runningTaskOf(bot.id);
    if (running)
      throw svcError(
        Code.AlreadyExists,
        "session_running",
        `bot "${bot.slug}" already has a running paper session ${running}; stop it first`,
        { task_id: running },
      );
    const spec = storedToSpec(bot.spec);
    try {
      // Strategy code was checked when its version was made; its params are the sandbox's to judge
      // (a session whose params do not fit ends failed invalid_params, as a backtest does).
      if (!spec.strategy?.code)
        resolveStrategy(
          spec.strategy?.family ?? "",
          spec.strategy?.parameters as Record<string, unknown> | undefined,
        );
      const from = dataSource || defaultDataSource(spec);
      // A universe's every symbol covered by its data (universe_not_covered names the rest).
      if (isPortfolio(spec.universe?.symbols, from)) {
        const { opts, parts } = await portfolioSource(db, spec, from);
        portfolioEngine(spec);
        await loadPortfolioBars(parts, undefined, undefined, opts);
      } else {
        const source = await runSource(db, spec, from);
        await loadBars(from, undefined, undefined, source.opts);
      }
    } catch (err) {
      if (err instanceof EngineInputError) throw engineInputRefused(err);
      throw err;
    }
    const allocation = await capitalFor(db, bot.slug, bot.fleet);
    const row = await sessions.start({
      botId: bot.id,
      version: bot.current_version,
      spec: bot.spec,
      dataSource: dataSource || defaultDataSource(spec),
      speed: speed > 0 ? speed : 10,
      allocation,
      origin,
    });
    return rowToDeployment(row);
  };

  return {
    startPaper: (req, ctx) =>
      startPaper(req.botRef, req.approvedPromotion, req.dataSource, req.speed, auditOriginOf(ctx)),

    async stopPaper(req, ctx) {
      const bot = await mustFind(req.botRef);
      const row = await findPaperSession(db, bot.id, req.taskId);
      if (!row)
        throw svcError(
          Code.NotFound,
          "task_not_found",
          `bot "${bot.slug}" has no paper session ${req.taskId}`,
          { task_id: req.taskId },
        );
      if (!(await sessions.stop(req.taskId, "success", "stopped by request", auditOriginOf(ctx)))) {
        throw svcError(
          Code.FailedPrecondition,
          "invalid_transition",
          `paper session ${req.taskId} is ${row.status}, not running`,
          { status: row.status },
        );
      }
      const stopped = await findDeployment(db, req.taskId);
      return rowToDeployment(stopped ?? row);
    },

    async haltBot(req, ctx) {
      const bot = await mustFind(req.botRef);
      const reason = req.reason || "halted by request";
      const ids = [
        ...(await sessions.haltBot(bot.id, reason, auditOriginOf(ctx))),
        ...((await deps.live?.haltBot(bot.id, reason)) ?? []),
      ];
      return halted(
        create(HaltResultSchema, { scope: "bot", halted: ids.length, taskIds: ids }),
        reason,
        bot.slug,
      );
    },

    async haltAllBots(req, ctx) {
      const reason = req.reason || "platform halt";
      const [paper, backtests, atVenue] = await Promise.all([
        sessions.haltAll(reason, auditOriginOf(ctx)),
        haltBacktests(db, deps.tasks, reason, auditOriginOf(ctx)),
        deps.live?.haltBot(undefined, reason) ?? [],
      ]);
      const ids = [...paper, ...backtests, ...atVenue];
      return halted(
        create(HaltResultSchema, {
          scope: "platform: bot deployments (paper sessions and backtests)",
          halted: ids.length,
          taskIds: ids,
        }),
        reason,
      );
    },

    async stopAllPaper(req, ctx) {
      const reason = req.reason || "all paper sessions stopped";
      const ids = await sessions.haltAll(reason, auditOriginOf(ctx));
      return halted(
        create(HaltResultSchema, { scope: "paper sessions", halted: ids.length, taskIds: ids }),
        reason,
      );
    },

    async haltRl() {
      // drl_policy artifacts can be promoted, but nothing in the live plane runs them yet.
      return create(HaltResultSchema, {
        scope:
          "deployments of drl_policy artifacts (none run: the live plane runs strategies only)",
        halted: 0,
        taskIds: [],
      });
    },

    async haltWorkflows(req, ctx) {
      const reason = req.reason || "halted by request";
      const ids = await haltBacktests(db, deps.tasks, reason, auditOriginOf(ctx));
      return halted(
        create(HaltResultSchema, {
          scope: "background tasks (backtests)",
          halted: ids.length,
          taskIds: ids,
        }),
        reason,
      );
    },

    async getStateSnapshot(req) {
      const bot = await mustFind(req.botRef);
      const state = await stateAsOf(db, bot.id);
      const snap = snapshotOf(state);
      return create(StateSnapshotSchema, {
        seq: BigInt(state.seq),
        positions: snap.positions,
        exposures: snap.exposures,
        metrics: snap.metrics as JsonObject,
      });
    },

    async listStateEvents(req) {
      const limit = pageSize(req.limit);
      const bot = await mustFind(req.botRef);
      const types = eventTypesOf(req.type);
      // The sorted types: a token carries the filter, not the order the caller spelled it in.
      const filters = { bot: bot.id, type: [...types].sort() };
      const list = { list: "bot_events", filters, keys: ["int"] as const };
      const after = decodePageToken(list, req.pageToken);
      const afterSeq = after ? Number(after[0]) : Number(req.afterSeq);
      const rows = await listEvents(db, bot.id, afterSeq, limit + 1, types);
      const { items: page, nextPageToken } = pageOf(rows, limit, list, (e) => [String(e.seq)]);
      return create(ListStateEventsResponseSchema, {
        items: page.map((e) =>
          create(BotEventSchema, {
            seq: BigInt(e.seq),
            type: e.type,
            occurredAt: timestampFromDate(e.occurredAt),
            data: e.data as JsonObject,
          }),
        ),
        nextCursor: rows.length > limit ? String(page.at(-1)!.seq) : "",
        nextPageToken,
      });
    },

    async replayBot(req) {
      const bot = await mustFind(req.botRef);
      const asOf = {
        seq: req.asOfSeq > 0n ? Number(req.asOfSeq) : undefined,
        time: req.asOfTime ? timestampDate(req.asOfTime) : undefined,
      };
      const state = await stateAsOf(db, bot.id, asOf);
      const deterministic = req.rerunStrategy ? await rerun(db, bot.id, state.seq) : false;
      return create(ReplayBotResponseSchema, {
        state: { ...snapshotOf(state), seq: state.seq } as unknown as JsonObject,
        asOfSeq: BigInt(state.seq),
        deterministic,
      });
    },

    async deployBot(req, ctx) {
      if (req.target === DeploymentTarget.PAPER)
        return startPaper(req.botRef, req.approvedPromotion, "", 0, auditOriginOf(ctx));
      if (req.target === DeploymentTarget.BACKTEST)
        throw svcError(
          Code.InvalidArgument,
          "invalid_argument",
          "a backtest is not a deployment target here; use POST /bots/{bot_ref}/backtest",
          { field: "target" },
        );
      if (req.target === DeploymentTarget.LIVE || req.target === DeploymentTarget.VENUE_PAPER)
        return deployAtVenue(
          req.botRef,
          req.approvedPromotion,
          req.target === DeploymentTarget.LIVE ? "live" : "venue_paper",
        );
      const bot = await mustFind(req.botRef);
      if (!deps.kube) {
        throw svcError(
          Code.FailedPrecondition,
          "kubernetes_not_configured",
          "deploying to k8s needs a cluster: set SVC_KUBE_API_URL (and SVC_KUBE_TOKEN) for the bots service",
          { setting: "SVC_KUBE_API_URL" },
        );
      }
      if (bot.status === "archived")
        throw svcError(
          Code.FailedPrecondition,
          "bot_archived",
          `bot "${bot.slug}" is archived; restore it before deploying it`,
          { status: "archived" },
        );
      await assertApprovedPromotion(
        { db, schema: BOTS_SCHEMA, publicKey: deps.publicKey },
        req.approvedPromotion,
        {
          id: bot.id,
          specHash: bot.spec_hash,
          strategyDigest: storedToSpec(bot.spec).strategy?.code?.digest,
          models: modelDigestsOf(storedToSpec(bot.spec)),
        },
      );
      const applied = await applyBotResource(deps.kube, {
        slug: bot.slug,
        fleet: bot.fleet,
        version: bot.current_version,
        specHash: bot.spec_hash,
        strategyDigest: storedToSpec(bot.spec).strategy?.code?.digest,
        approvedPromotion: req.approvedPromotion,
      });
      const row = await insertK8sDeployment(db, {
        botId: bot.id,
        version: bot.current_version,
        request: {
          namespace: deps.kube.namespace,
          uid: applied.uid,
          resource_version: applied.resourceVersion,
        },
      });
      deps.onBotApplied?.();
      return rowToDeployment(row);
    },
  };
}

/** The types asked for (repeated or comma-separated); an unknown one is refused, naming all. */
function eventTypesOf(asked: readonly string[]): string[] {
  const types = [...new Set(asked.flatMap((t) => t.split(",")).map((t) => t.trim()))].filter(
    (t) => t !== "",
  );
  const known: readonly string[] = EVENT_TYPES;
  const unknown = types.find((t) => !known.includes(t));
  if (unknown !== undefined)
    throw svcError(
      Code.InvalidArgument,
      "invalid_argument",
      `type ${JSON.stringify(unknown)} is no event type; known: ${known.join(", ")}`,
      { field: "type", allowed: [...known] },
    );
  return types;
}

/**
 * Re-runs the strategy of the session that produced the state, over the bars it recorded, and
 * compares what it does with what was recorded: same inputs must give the same events.
 */
async function rerun(db: Kysely<BotsDatabase>, botId: string, uptoSeq: number): Promise<boolean> {
  const upto = await listEvents(db, botId, 0, Math.max(1, uptoSeq));
  const lastStart = [...upto].reverse().find((e) => e.type === "session_started");
  if (!lastStart) return false;
  const recorded = (await taskEvents(db, String(lastStart.data.task_id))).filter(
    (e) => e.seq <= uptoSeq,
  );
  const version = await repo.findVersion(db, botId, Number(lastStart.data.version));
  if (!version) return false;
  const spec = storedToSpec(version.spec);
  const taskId = String(lastStart.data.task_id);
  const symbol = String(lastStart.data.symbol);
  // Strategy code re-runs in a sandbox of its own, seeded as the session's was.
  // Its models answer as the session recorded them (model_output): no model runs again.
  const modelNames = Object.keys(modelDigestsOf(spec));
  const models = modelNames.length
    ? new RecordedModels(
        modelNames,
        recorded
          .filter((e) => e.type === "model_output")
          .map((e) => e.data as Extract<RunnerEvent, { type: "model_output" }>["data"]),
      )
    : undefined;
  const host = spec.strategy?.code
    ? await startCodeHost({
        bundle: await bundleOf(db, botId, version.version),
        spec,
        symbol,
        taskId,
        ...(models ? { models } : {}),
      }).catch((err: unknown) => {
        if (err instanceof StrategyFailure) return undefined;
        throw err;
      })
    : undefined;
  if (spec.strategy?.code && !host) return false;
  const builtIn = host
    ? undefined
    : resolveStrategy(
        spec.strategy?.family ?? "",
        spec.strategy?.parameters as Record<string, unknown> | undefined,
      );
  const bars = recorded
    .filter((e) => e.type === "bar_received")
    .map((e) => e.data as Extract<RunnerEvent, { type: "bar_received" }>["data"]);
  const inputs = {
    length: bars.length,
    time: Float64Array.from(bars, (b) => b.time),
    open: Float64Array.from(bars, (b) => b.open),
    high: Float64Array.from(bars, (b) => b.high),
    low: Float64Array.from(bars, (b) => b.low),
    close: Float64Array.from(bars, (b) => b.close),
    volume: Float64Array.from(bars, (b) => b.volume ?? 0),
  };
  const engine = spec.engine;
  const produced: RunnerEvent[] = [];
  const runner = new BotRunner({
    symbol,
    bars: inputs,
    startIndex: 0,
    speed: 0,
    ...(host ? { host } : { strategy: builtIn!.family.create(builtIn!.params) }),
    costs: {
      feeBps: engine?.feeBps ?? 0,
      slippageBps: engine?.slippageBps ?? 0,
      positionSize: engine?.positionSize || 1,
      maxVolumeParticipation: engineSettingsFrom(engine).maxVolumeParticipation,
    },
    broker: {
      cash: Number(lastStart.data.initial_cash),
      units: 0,
      idPrefix: `${taskId}-`,
    },
    // The bot's own limits judge the orders again; what the rest of a fleet held then and when a
    // person re-enabled the bot are not in these events, so a session they shaped replays apart.
    risk: {
      limits: riskLimitsFrom(spec.risk),
      startEquity: Number(lastStart.data.initial_cash),
    },
    sink: async (events) => void produced.push(...events),
  });
  // A strategy that fails on the re-run did not do what was recorded (which it did not fail in).
  if (
    !(await runner.finished().then(
      () => true,
      () => false,
    ))
  )
    return false;
  // Canonical JSON: the database may hand keys back in another order than they were written.
  const comparable = (e: { type: string; data: Record<string, unknown> }) =>
    e.type + canonicalJson(e.type === "bar_received" ? { ...e.data, index: undefined } : e.data);
  const trading = (types: string) =>
    ["bar_received", "order_placed", "order_filled", "position_changed"].includes(types);
  const a = recorded.filter((e) => trading(e.type)).map((e) => comparable(e as StoredEvent));
  const b = produced
    .filter((e) => trading(e.type))
    .map((e) => comparable(e as { type: string; data: Record<string, unknown> }))
    .slice(0, a.length);
  return a.length > 0 && a.length === b.length && a.every((x, i) => x === b[i]);
}
