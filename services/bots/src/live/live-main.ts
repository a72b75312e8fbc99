import type { Kysely } from "kysely";
import { loadConfig } from "@svc/lib/config";
import { migrateSchema, schemaDb } from "@svc/lib/db";
import { createKubeClient } from "@svc/lib/kube";
import { closeOnSignals, openPlatform } from "@svc/lib/server";
import { migrations } from "../../migrations/index.js";
import { reportRunnerPhase } from "../runtime/bot-workloads.js";
import { keysFor, watchKillSwitch } from "../runner/kill-switch-watcher.js";
import type { BotsDatabase } from "../store/bots.table.js";
import { workloadDeploymentOf } from "../store/live-deployments.repository.js";
import type { LiveRunner } from "./live-runner.js";
import { liveRunnerOfBot, RunnerUnbuildable } from "./runner-of-bot.js";
import { WorkloadLease } from "./workload-lease.js";

// A runner workload (the pod the bots service makes of a Bot, or a laptop's process): runs one
// bot on one venue, paper or live, as SVC_LIVE_* say; obeys its kill switches by itself.
// `npm run runner:live -w services/bots`.
const config = loadConfig();
const w = config.liveWorkload;
const venueSettings = config.runnerWorkloads;
const fail = (message: string): never => {
  process.stderr.write(`svc runner: ${message}\n`);
  process.exit(2);
};
if (!w.slug) fail("SVC_LIVE_BOT_SLUG names no bot: this process runs one bot");
const platform = await openPlatform(config, "bots-live-runner");
await migrateSchema(platform.db.db, "bots", migrations);
const db = schemaDb<BotsDatabase>(platform.db.db, "bots") as Kysely<BotsDatabase>;
const bot = await db.selectFrom("bots").selectAll().where("slug", "=", w.slug!).executeTakeFirst();
if (!bot) fail(`no bot ${w.slug}`);
// The workload names what was deployed; a bot that moved on since is not run on an old token.
if (bot!.current_version !== w.version || bot!.spec_hash !== w.specHash)
  fail(
    `the workload is stale: it was deployed with version ${w.version} (${w.specHash}); the bot is at version ${bot!.current_version} (${bot!.spec_hash})`,
  );
// The deployment's lease: a second runner of the same deployment waits here until the first is
// gone (its lease handed back, or silent for SVC_RUNNER_LEASE_S), and never trades meanwhile.
const taskId = await workloadDeploymentOf(db, bot!.id);
if (!taskId) fail(`bot ${w.slug} has no k8s deployment to run: DeployBot it first`);
const lease = new WorkloadLease(db, taskId!, config.runnerLeaseS);
const fence = await lease.acquire(undefined, () =>
  process.stdout.write(
    `runner ${bot!.slug}: deployment ${taskId} is held by another runner; waiting\n`,
  ),
);
let runner: LiveRunner;
try {
  runner = liveRunnerOfBot({
    bot: bot!,
    mode: venueSettings.mode,
    taskId: taskId!,
    approvedPromotion: w.approvedPromotion,
    ...(w.strategyDigest ? { strategyDigest: w.strategyDigest } : {}),
    db,
    schema: "bots",
    publicKeyPem: config.promotionTokens.publicKeyPem,
    license: platform.license,
    venue: { ...venueSettings.venue, credentials: w.credentials },
    barMs: w.barMs,
    fence,
    mayTrade: lease.mayTrade,
  });
} catch (err) {
  await lease.release();
  await platform.close();
  fail(err instanceof RunnerUnbuildable ? err.message : String(err));
}
try {
  await runner!.start();
} catch (err) {
  await lease.release();
  await platform.close();
  fail(err instanceof Error ? err.message : String(err));
}
// In a cluster, the Bot's status shows the runner's phase and what the venue confirmed.
const kube = config.kubeApiUrl
  ? createKubeClient({
      apiUrl: config.kubeApiUrl,
      namespace: config.kubeNamespace,
      token: config.kubeToken,
      timeoutMs: config.kubeTimeoutMs,
    })
  : undefined;
const report = () => {
  if (!kube || runner.phase === "Starting") return;
  const h = runner.lastHalt;
  void reportRunnerPhase(
    kube,
    bot!.slug,
    runner.phase,
    h
      ? {
          confirmed: h.confirmed,
          openAtVenue: Number.isNaN(h.openAtVenue) ? null : h.openAtVenue,
          positionAtVenue: h.positionAtVenue ?? null,
        }
      : undefined,
  ).catch((err) => platform.log.warn({ err }, "the Bot's status was not updated"));
};
report();
const watcher = watchKillSwitch({
  kv: platform.kv,
  bus: platform.bus,
  keys: keysFor(bot!.slug, bot!.fleet),
  pollMs: config.killSwitchPollIntervalS * 1000,
  onEngage: (e) =>
    void runner
      .halt(e.mode, `kill switch ${e.key}: ${e.reason}`)
      .then((h) => (platform.log.info({ halt: h }, "halted at the venue"), report()))
      .catch((err) => platform.log.error({ err }, "halt failed")),
  onRelease: () => platform.log.info("kill switch released: restart the workload to trade again"),
  onBlind: () => platform.log.warn("kill switch keys unreadable"),
});
// The lease moved (this process was paused or cut off and another runner took over): stop at
// once, write nothing more, and exit; the workload's restart waits for the lease again.
lease.keep(() => {
  platform.log.warn({ task_id: taskId }, "the deployment's lease moved: this runner stops");
  void watcher
    .stop()
    .then(() => runner.abandon())
    .finally(() => platform.close().finally(() => process.exit(3)));
});
closeOnSignals(platform.log, [
  async () => watcher.stop(),
  () => runner.stop("the workload stopped"),
  () => lease.release(),
  () => platform.close(),
]);
// Ready once a stop signal is handled: a workload stopped at once still audits its stop.
process.stdout.write(
  `runner ${bot!.slug} ${venueSettings.mode} on ${venueSettings.venue.adapter}\n`,
);
