import { createControlPlaneHandlers } from "./handlers/control-plane-handlers.js";
import { createFleetInfrastructureHandlers } from "./handlers/fleet-infrastructure-handlers.js";
import type { Kysely } from "kysely";
import { BotsService, ControlPlaneService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { migrateSchema, schemaDb } from "@svc/lib/db";
import { startOutboxRelay, type BusSubscription } from "@svc/lib/bus";
import { consumePromotionEvents } from "./consumers/promotion-events.js";
import { completeService, type Platform, type ServiceModule } from "@svc/lib/server";
import { migrations } from "../migrations/index.js";
import { BOTS_SCHEMA, createBotsHandlers } from "./handlers/bots-handlers.js";
import {
  createBacktestHandlers,
  failDeployment,
  runClaimedBacktest,
} from "./handlers/backtest-handlers.js";
import { backtestQueue } from "./runtime/backtest-queue.js";
import { createBacktestPool } from "./runtime/backtest-pool.js";
import { createTaskRunner, TaskCancelled } from "./runtime/task-runner.js";
import { backtestHostId, backtestRecovery } from "./runtime/backtest-recovery.js";
import { PaperSessions } from "./runtime/paper-sessions.js";
import { LiveDeployments } from "./runtime/live-deployments.js";
import { externalControl, inProcessControl } from "./runtime/session-control.js";
import { createRuntimeHandlers } from "./handlers/runtime-handlers.js";
import { createRiskHandlers } from "./handlers/risk-handlers.js";
import { createRunningPaperHandlers } from "./handlers/running-paper-handlers.js";
import { createTrialHandlers } from "./handlers/trial-handlers.js";
import { createSweepHandlers } from "./handlers/sweep-handlers.js";
import { advanceWalkForwards } from "./sweeps/walk-forward.js";
import { createBacktestResultsHandlers } from "./handlers/backtest-results-handlers.js";
import { createDatasetHandlers } from "./handlers/dataset-handlers.js";
import { createPullHandlers } from "./handlers/pull-handlers.js";
import { createComplianceRunHandlers } from "./handlers/compliance-run-handlers.js";
import { statementKeysFromPem } from "@svc/lib/signed-statement";
import { createKubeClient, type KubeClient } from "@svc/lib/kube";
import { reconcileBotWorkloads } from "./runtime/bot-workloads.js";
import type { BotsDatabase } from "./store/bots.table.js";
import { createChatHandlers } from "./handlers/chat-handlers.js";
import { createStrategySourceHandlers } from "./handlers/strategy-source-handlers.js";
import { createModelHandlers } from "./handlers/model-handlers.js";
import { createStrategyChecker } from "./strategy-code/strategy-checker.js";
import { agentHalts } from "./chat/agent-halts.js";
import { chatLimits } from "./chat/chat-limits.js";
import { createChatDelegation, type ChatDelegation } from "./chat/delegation.js";

/** What the process hosting the bots service tells it beyond the platform. */
export interface BotsModuleOptions {
  /** The platform's MCP endpoint when SVC_MCP_URL is unset (all-in-one: its own gateway's /mcp). */
  mcpUrl?: () => string | undefined;
}

/**
 * The bots service: the live plane. Migrates its schema, serves BotsService and
 * ControlPlaneService, and relays its outbox to the bus.
 *
 * @example const bots = await createBotsModule(platform); await bots.start();
 */
export async function createBotsModule(
  platform: Platform,
  opts: BotsModuleOptions = {},
): Promise<ServiceModule> {
  await migrateSchema(platform.db.db, BOTS_SCHEMA, migrations);
  const db = schemaDb<BotsDatabase>(platform.db.db, BOTS_SCHEMA) as Kysely<BotsDatabase>;
  // Strategy code is type-checked and bundled on a thread of its own, one check at a time.
  const strategyChecker = createStrategyChecker();
  const handlers = createBotsHandlers({ db, kv: platform.kv, strategyChecker });
  const strategySources = createStrategySourceHandlers(db);
  const hostId = backtestHostId();
  // Bounded: at most SVC_BACKTEST_WORKERS backtests and compliance runs at once in this process.
  const tasks = createTaskRunner((taskId, err) => {
    if (err instanceof TaskCancelled)
      platform.log.info({ task_id: taskId, reason: err.message }, "background task halted");
    void failDeployment(db, hostId, taskId, err).then(
      (outcome) => {
        if (outcome === "requeued")
          platform.log.warn(
            { err, task_id: taskId },
            "backtest put back in the queue (store outage)",
          );
        else if (!(err instanceof TaskCancelled))
          platform.log.error({ err, task_id: taskId }, "background task failed");
      },
      (e) => platform.log.error({ err: e, task_id: taskId }, "could not record the failure"),
    );
  }, platform.config.backtests.workers);
  // The runs' computation, off the event loop: one worker thread per slot at most.
  const pool = createBacktestPool({
    width: platform.config.backtests.workers,
    memoryMb: platform.config.backtests.workerMemoryMb,
    // On Postgres each worker writes its runs' results on a connection of its own; on PGlite
    // (one connection, this thread's) they come back here to be written.
    ...(platform.db.url
      ? { store: { postgresUrl: platform.db.url, timeoutMs: platform.config.timeouts.dbMs } }
      : {}),
  });
  const runDeps = { db, tasks, hostId, pool, log: platform.log };
  const queue = backtestQueue({
    ...runDeps,
    run: (row) => runClaimedBacktest(runDeps, row),
  });
  const backtests = createBacktestHandlers({
    ...runDeps,
    queueMax: platform.config.backtests.queueMax,
    pump: queue.pump,
  });
  const sweeps = createSweepHandlers({
    db,
    tasks,
    queueMax: platform.config.backtests.queueMax,
    maxRuns: platform.config.backtests.sweepMaxRuns,
    pump: queue.pump,
  });
  // A walk-forward fold whose in-sample runs all ended gets its out-of-sample run queued: looked
  // at whenever a run settles here and on every recovery pass (a process that died meanwhile).
  const advanceThenPump = async () => {
    await advanceWalkForwards(db).catch((err) =>
      platform.log.warn({ err }, "walk-forward advance failed; the next pass retries"),
    );
    await queue.pump();
  };
  tasks.onSettled(() => void advanceThenPump());
  // Backtests left pending or running by a process that died go back in the queue (see backtest-recovery).
  const recovery = backtestRecovery({
    db,
    tasks,
    hostId,
    log: platform.log,
    leaseSeconds: platform.config.runnerLeaseS,
    pump: advanceThenPump,
  });
  const sessions = new PaperSessions({
    db,
    log: platform.log,
    kv: platform.kv,
    bus: platform.bus,
    pollIntervalMs: platform.config.killSwitchPollIntervalS * 1000,
    leaseSeconds: platform.config.runnerLeaseS,
    license: platform.license,
  });
  const { publicKeyPem } = platform.config.promotionTokens;
  const external = platform.config.runners === "external";
  const control = external
    ? externalControl({ db, bus: platform.bus })
    : inProcessControl(sessions);
  const runtimeKube = platform.config.kubeApiUrl
    ? createKubeClient({
        apiUrl: platform.config.kubeApiUrl,
        namespace: platform.config.kubeNamespace,
        token: platform.config.kubeToken,
        timeoutMs: platform.config.kubeTimeoutMs,
      })
    : undefined;
  // Runners at a venue (DeployBot live, venue_paper) in this process, as paper sessions are.
  const live = external
    ? undefined
    : new LiveDeployments({
        db,
        schema: BOTS_SCHEMA,
        log: platform.log,
        kv: platform.kv,
        bus: platform.bus,
        pollIntervalMs: platform.config.killSwitchPollIntervalS * 1000,
        leaseSeconds: platform.config.runnerLeaseS,
        license: platform.license,
        publicKeyPem,
        venue: {
          ...platform.config.runnerWorkloads.venue,
          credentials: platform.config.liveWorkload.credentials,
        },
        barMs: platform.config.liveWorkload.barMs,
      });
  const workloads = startWorkloadReconciler(platform, runtimeKube);
  const runtime = createRuntimeHandlers({
    db,
    sessions: control,
    tasks,
    publicKey: publicKeyPem ? statementKeysFromPem({ publicKeyPem }).publicKey : undefined,
    kube: runtimeKube,
    log: platform.log,
    ...(live ? { live } : {}),
    ...(workloads ? { onBotApplied: workloads.pass } : {}),
  });
  const riskRoutes = createRiskHandlers({ db, sessions: control, log: platform.log });
  const trials = createTrialHandlers(db);
  const runningPaper = createRunningPaperHandlers(db);
  const backtestResults = createBacktestResultsHandlers(db);
  const datasets = createDatasetHandlers({
    db,
    maxBytes: platform.config.datasetMaxBytes,
    importUrlPrefixes: platform.config.datasetImportUrlPrefixes,
    importMaxBytes: platform.config.datasetImportMaxBytes,
  });
  const complianceRuns = createComplianceRunHandlers({
    db,
    tasks,
    hostId,
    queueMax: platform.config.backtests.queueMax,
  });
  logChatSettings(platform);
  const chat = createChatHandlers({
    db,
    log: platform.log,
    ...(platform.config.chat.llm.baseUrl && platform.config.chat.llm.model
      ? {
          llm: {
            baseUrl: platform.config.chat.llm.baseUrl,
            model: platform.config.chat.llm.model,
            apiKey: platform.config.chat.llm.apiKey,
            timeoutMs: platform.config.chat.llm.timeoutMs,
          },
        }
      : {}),
    ...chatDelegationOf(platform),
    mcpUrl: () => platform.config.chat.mcpUrl ?? opts.mcpUrl?.(),
    halts: agentHalts({
      kv: platform.kv,
      bus: platform.bus,
      pollMs: platform.config.killSwitchPollIntervalS * 1000,
    }),
    limits: chatLimits({
      kv: platform.kv,
      perMinute: platform.config.chat.ratePerMinute,
      tokenBudget: platform.config.chat.tokenBudget,
    }),
    timeoutMs: platform.config.timeouts.dbMs,
  });
  const controlPlane = {
    ...createControlPlaneHandlers({ db, schema: BOTS_SCHEMA, kube: runtimeKube }),
    ...createFleetInfrastructureHandlers({
      db,
      schema: BOTS_SCHEMA,
      kube: runtimeKube,
      workloads: platform.config.runnerWorkloads,
    }),
  };
  let relay: ReturnType<typeof startOutboxRelay> | undefined;
  let consumer: BusSubscription | undefined;
  let leaseTimer: NodeJS.Timeout | undefined;
  return {
    name: "bots",
    services: [BotsService, ControlPlaneService],
    routes(router) {
      router.service(
        BotsService,
        completeService(BotsService, {
          ...handlers,
          ...strategySources,
          ...createModelHandlers(db),
          ...backtests,
          ...runtime,
          ...riskRoutes,
          ...trials,
          ...sweeps,
          ...backtestResults,
          ...datasets,
          ...createPullHandlers({ db, exchanges: platform.config.dataPullExchanges }),
          ...complianceRuns,
          ...chat,
          ...runningPaper,
        }),
      );
      router.service(ControlPlaneService, controlPlane);
    },
    async start() {
      relay = startOutboxRelay({
        db: platform.db.db,
        schema: BOTS_SCHEMA,
        bus: platform.bus,
        log: (o: object, m: string) => platform.log.warn(o, m),
        published: (o: object, m: string) => platform.log.info(o, m),
      });
      consumer = await consumePromotionEvents({
        bus: platform.bus,
        db,
        schema: BOTS_SCHEMA,
        onRevoked: async (botId, requestId) => {
          await control.haltBot(botId, `promotion ${requestId} revoked`);
          await live?.haltBot(botId, `promotion ${requestId} revoked`);
        },
      });
      await recovery.start();
      if (!external) {
        const resumed = await sessions.pickUp();
        if (resumed > 0)
          platform.log.info({ sessions: resumed }, "paper sessions resumed from their events");
        // Renews this host's lease on its sessions and takes over those of a host that died.
        // Renew well inside the lease, so a busy event loop does not lose it.
        await live
          ?.pickUp()
          .catch((err) => platform.log.warn({ err }, "live deployment pick-up failed"));
        leaseTimer = setInterval(
          () => {
            void sessions
              .pickUp()
              .catch((err) => platform.log.warn({ err }, "session pick-up failed"));
            void live
              ?.pickUp()
              .catch((err) => platform.log.warn({ err }, "live deployment pick-up failed"));
          },
          Math.min(5_000, (platform.config.runnerLeaseS * 1000) / 3),
        );
        leaseTimer.unref();
      }
    },
    async stop() {
      if (leaseTimer) clearInterval(leaseTimer);
      workloads?.stop();
      await live?.stopAll();
      await sessions.detachAll();
      // The leases stay renewed while the runs finish, so no other process re-runs them meanwhile.
      await tasks.stop();
      await pool.close();
      await strategyChecker.close();
      await recovery.stop();
      await consumer?.stop();
      await relay?.stop();
    },
  };
}

/**
 * With SVC_RUNNER_WORKLOADS=kubernetes, every Bot resource gets its runner Deployment: at start,
 * at once after each DeployBot (`pass`), and every 30 s as the fallback (server-side apply
 * changes nothing that is already right).
 */
function startWorkloadReconciler(
  platform: Platform,
  kube: KubeClient | undefined,
): { stop(): void; pass(): void } | undefined {
  const settings = platform.config.runnerWorkloads;
  if (!settings.enabled) return undefined;
  if (!kube) {
    platform.log.warn("SVC_RUNNER_WORKLOADS=kubernetes needs SVC_KUBE_API_URL: no Bot is run");
    return undefined;
  }
  let passing = false;
  // A deploy heard during a pass gets one more pass right after it: the pass may have listed the
  // Bots before its resource was written.
  let again = false;
  const pass = () => {
    if (passing) {
      again = true;
      return;
    }
    passing = true;
    again = false;
    void reconcileBotWorkloads(kube, settings)
      .then((applied) => platform.log.debug({ applied }, "runner workloads reconciled"))
      .catch((err: unknown) => platform.log.warn({ err }, "runner workloads not reconciled"))
      .finally(() => {
        passing = false;
        if (again) pass();
      });
  };
  pass();
  const timer = setInterval(pass, 30_000);
  timer.unref();
  return { stop: () => clearInterval(timer), pass };
}

/** The chat agent's delegation, when the platform has a broker and the agent its own client. */
function chatDelegationOf(platform: Platform): { delegation?: ChatDelegation } {
  const { agentClientId, agentClientSecret } = platform.config.chat;
  const { issuer, audience } = platform.config.auth;
  if (!platform.agentBroker || !agentClientId || !agentClientSecret || !issuer || !audience)
    return {};
  return {
    delegation: createChatDelegation({
      issuer,
      audience,
      agentClientId,
      agentClientSecret,
      broker: platform.agentBroker,
      timeoutMs: platform.config.timeouts.dbMs,
    }),
  };
}

/** The start-up log says whether research chat can answer, and what it lacks. */
function logChatSettings(platform: Platform): void {
  const { llm, agentClientId } = platform.config.chat;
  if (!llm.baseUrl || !llm.model) {
    platform.log.info(
      "research chat answers 412 llm_not_configured: set SVC_LLM_BASE_URL and SVC_LLM_MODEL (npm run llm starts a stand-in)",
    );
    return;
  }
  const oidc = platform.config.auth.provider === "oidc";
  platform.log.info(
    {
      model: llm.model,
      base_url: llm.baseUrl,
      delegation: oidc ? Boolean(chatDelegationOf(platform).delegation) : "local user",
    },
    oidc && !(platform.agentBroker && agentClientId)
      ? "research chat has a model but cannot delegate: set the agent broker (SVC_AUTH_AGENT_BROKER_*) and SVC_CHAT_AGENT_CLIENT_ID/_SECRET"
      : "research chat on",
  );
}
