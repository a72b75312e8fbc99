import { KillSwitchService } from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { migrateSchema, schemaDb } from "@svc/lib/db";
import { startOutboxRelay, type BusSubscription } from "@svc/lib/bus";
import { completeService, type Platform, type ServiceModule } from "@svc/lib/server";
import { migrations } from "../migrations/index.js";
import { consumeBotsEvents } from "./consumers/bots-events.js";
import { createKillSwitchHandlers, type BotExists } from "./handlers/kill-switch-handlers.js";
import { createAgentHaltHandlers } from "./handlers/agent-halt-handlers.js";
import { createAgentHaltStateHandlers } from "./agent-switches/agent-halt-state.js";
import { reconcileKeys } from "./engagement/reconcile-keys.js";
import { KILLSWITCH_SCHEMA as SCHEMA, type KillSwitchDatabase } from "./store/killswitch.table.js";
import { createDrillHandlers } from "./handlers/drill-handlers.js";
import type { DrillRoster } from "./clients/drill-roster.js";
import { createDrillRunner } from "./drills/drill-runner.js";
import { sweepInterruptedDrills } from "./drills/drill-sweep.js";
import { createDrillScheduler } from "./drills/drill-scheduler.js";
import { createDrillScheduleHandlers } from "./handlers/drill-schedule-handlers.js";
import { startKillSwitchController } from "./controller/controller.js";
import { createKubeClient } from "@svc/lib/kube";

export { botExistsFrom } from "./clients/bot-exists.js";
export { drillRosterFrom } from "./clients/drill-roster.js";
export { botsOverNetwork } from "./clients/bots-over-network.js";

/** Sweeps (one a second) between two looks at the drill schedule. */
const SCHEDULE_EVERY_SWEEPS = 5;

/**
 * The kill-switch service: resources engaged and released by REST, gRPC or a Kubernetes
 * controller, written to the key-value keys runners poll and broadcast on the bus.
 */
export async function createKillSwitchModule(
  platform: Platform,
  wiring: { botExists?: BotExists; drillRoster?: DrillRoster } = {},
): Promise<ServiceModule> {
  await migrateSchema(platform.db.db, SCHEMA, migrations);
  const db = schemaDb<KillSwitchDatabase>(platform.db.db, SCHEMA);
  const deps = { db, kv: platform.kv, bus: platform.bus };
  const switches = createKillSwitchHandlers({ ...deps, botExists: wiring.botExists });
  const boundsS = platform.config.drillBoundsS;
  const drills = createDrillRunner({
    ...deps,
    switches,
    roster: wiring.drillRoster,
    boundsMs: {
      draining: boundsS.draining * 1_000,
      stoppedHighFrequency: boundsS.stoppedHighFrequency * 1_000,
      stopped: boundsS.stopped * 1_000,
    },
    log: platform.log,
  });
  const scheduler = createDrillScheduler({ db, runner: drills, log: platform.log });
  const handlers = {
    ...switches,
    ...createDrillHandlers({ db, runner: drills }),
    ...createDrillScheduleHandlers({ db, now: scheduler.now }),
    ...createAgentHaltHandlers({ ...deps, log: platform.log }),
    ...createAgentHaltStateHandlers(deps),
  };
  // A drill a dead process left is ended once its switch's TTL is past by the restart check
  // (the Draining bound) and a margin for writing the verdicts.
  const drillGraceMs = boundsS.draining * 1_000 + 30_000;
  let sweepFailing = false;
  let sweeping = false;
  let sweeps = 0;
  const sweep = async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      await reconcileKeys(deps);
      await sweepInterruptedDrills(db, drills.inFlight(), drillGraceMs);
      // The calendar moves slowly: a look every few seconds starts a due drill in time.
      if (sweeps++ % SCHEDULE_EVERY_SWEEPS === 0) await scheduler.tick();
      if (sweepFailing) platform.log.info("kill-switch keys reconciled again");
      sweepFailing = false;
    } catch (err) {
      if (!sweepFailing)
        platform.log.warn(
          { err },
          "kill-switch keys cannot be reconciled (TTL release and key repair); retrying every second",
        );
      sweepFailing = true;
    } finally {
      sweeping = false;
    }
  };
  let consumer: BusSubscription | undefined;
  let relay: ReturnType<typeof startOutboxRelay> | undefined;
  let controller: ReturnType<typeof startKillSwitchController> | undefined;
  let sweeper: NodeJS.Timeout | undefined;
  return {
    name: "killswitch",
    services: [KillSwitchService],
    routes(router) {
      router.service(KillSwitchService, completeService(KillSwitchService, handlers));
    },
    async start() {
      // The outbox carries this service's audit events to the identity service's chain.
      relay = startOutboxRelay({
        db: platform.db.db,
        schema: SCHEMA,
        bus: platform.bus,
        log: (o: object, m: string) => platform.log.warn(o, m),
        published: (o: object, m: string) => platform.log.info(o, m),
      });
      consumer = await consumeBotsEvents({ bus: platform.bus, db, schema: SCHEMA });
      sweeper = setInterval(() => void sweep(), 1_000);
      sweeper.unref();
      const { kubeApiUrl, kubeNamespace, kubeToken, kubeTimeoutMs } = platform.config;
      if (kubeApiUrl)
        controller = startKillSwitchController({
          kube: createKubeClient({
            apiUrl: kubeApiUrl,
            namespace: kubeNamespace,
            token: kubeToken,
            timeoutMs: kubeTimeoutMs,
          }),
          handlers,
          log: platform.log,
        });
    },
    async stop() {
      if (sweeper) clearInterval(sweeper);
      await drills.stop();
      await controller?.stop();
      await consumer?.stop();
      await relay?.stop();
    },
  };
}
