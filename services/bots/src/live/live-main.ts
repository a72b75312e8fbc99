import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import ccxt from "ccxt";
import { loadConfig } from "@svc/lib/config";
import { migrateSchema, schemaDb } from "@svc/lib/db";
import { createKubeClient } from "@svc/lib/kube";
import { closeOnSignals, openPlatform } from "@svc/lib/server";
import { statementKeysFromPem } from "@svc/lib/signed-statement";
import { migrations } from "../../migrations/index.js";
import { allocateBars } from "../engine/bars.js";
import { engineSettingsFrom, resolveStrategy } from "../engine/index.js";
import type { VenueReport } from "../execution/kernel/venue.js";
import { CcxtVenue } from "../execution/venues/ccxt/ccxt-venue.js";
import { FixVenue } from "../execution/venues/fix/fix-venue.js";
import type { LedgerVenue } from "../execution/venues/pipeline-venue.js";
import { assertApprovedPromotion } from "../handlers/approved-promotion.js";
import { storedToSpec } from "../handlers/bot-mapping.js";
import { reportRunnerPhase } from "../runtime/bot-workloads.js";
import { keysFor, watchKillSwitch } from "../runner/kill-switch-watcher.js";
import type { BotsDatabase } from "../store/bots.table.js";
import { LiveRunner } from "./live-runner.js";

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
const spec = storedToSpec(bot!.spec);
if (spec.strategy?.code)
  fail("strategy code is not run by a live runner yet: deploy a built-in family");
const symbol = spec.universe?.symbols[0] ?? fail("the bot's universe names no symbol");
const { family, params } = resolveStrategy(
  spec.strategy?.family ?? "",
  spec.strategy?.parameters as Record<string, unknown> | undefined,
);
const strategy = family.create(params);
const row = allocateBars(1);
const settings = engineSettingsFrom(spec.engine);
const publicKeyPem = config.promotionTokens.publicKeyPem;

const venue = (report: VenueReport): LedgerVenue => {
  const { host, port, adapter } = venueSettings.venue;
  const c = w.credentials;
  if (adapter === "fix")
    return new FixVenue({ host, port, username: c.username, password: c.password, report });
  const api = `http://${host}:${port}/api/v3`;
  const exchange = new ccxt.binance({
    apiKey: c.apiKey,
    secret: c.apiSecret,
    urls: { api: { public: api, private: api, v1: api } },
    options: { fetchMarkets: { types: ["spot"] }, fetchMargins: false, fetchCurrencies: false },
  });
  return new CcxtVenue({ exchange, report });
};

const runner = new LiveRunner({
  mode: venueSettings.mode,
  bot: {
    id: bot!.id,
    slug: bot!.slug,
    specHash: bot!.spec_hash,
    ...(w.strategyDigest ? { strategyDigest: w.strategyDigest } : {}),
  },
  taskId: randomUUID(),
  approvedPromotion: w.approvedPromotion,
  verifyPromotion: (token, b) =>
    assertApprovedPromotion(
      {
        db,
        schema: "bots",
        publicKey: publicKeyPem ? statementKeysFromPem({ publicKeyPem }).publicKey : undefined,
      },
      token,
      b,
    ),
  license: platform.license,
  venue,
  db,
  schema: "bots",
  symbol,
  strategy: (bar) => {
    // The strategy copies the bar it is shown: one row, rewritten at every close, is enough.
    row.time[0] = bar.time;
    row.open[0] = bar.open;
    row.high[0] = bar.high;
    row.low[0] = bar.low;
    row.close[0] = bar.close;
    row.volume[0] = bar.volume;
    const weight = strategy.onBar(row, 0);
    // NaN: the strategy set no target yet, so the position is left as it is.
    return Number.isNaN(weight) ? undefined : { target: weight };
  },
  costs: {
    feeBps: settings.feeBps,
    slippageBps: settings.slippageBps,
    positionSize: settings.positionSize,
  },
  initialCash: settings.initialCash,
  barMs: w.barMs,
  reconcileEveryMs: 5_000,
});
try {
  await runner.start();
} catch (err) {
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
closeOnSignals(platform.log, [
  async () => watcher.stop(),
  () => runner.stop("the workload stopped"),
  () => platform.close(),
]);
// Ready once a stop signal is handled: a workload stopped at once still audits its stop.
process.stdout.write(
  `runner ${bot!.slug} ${venueSettings.mode} on ${venueSettings.venue.adapter}\n`,
);
