import type { Kysely } from "kysely";
import ccxt from "ccxt";
import type { LicenseGate } from "@svc/lib/license";
import { statementKeysFromPem } from "@svc/lib/signed-statement";
import { allocateBars } from "../engine/bars.js";
import { engineSettingsFrom, resolveStrategy } from "../engine/index.js";
import type { VenueReport } from "../execution/kernel/venue.js";
import { CcxtVenue } from "../execution/venues/ccxt/ccxt-venue.js";
import { FixVenue } from "../execution/venues/fix/fix-venue.js";
import type { LedgerVenue } from "../execution/venues/pipeline-venue.js";
import { assertApprovedPromotion } from "../handlers/approved-promotion.js";
import { storedToSpec } from "../handlers/bot-mapping.js";
import type { BotsDatabase, BotRow } from "../store/bots.table.js";
import type { LeaseFence } from "../store/events.repository.js";
import { LiveRunner, type LiveMode } from "./live-runner.js";
import type { VenueSettings } from "./venue-settings.js";

export { venueNotConfigured, type VenueSettings } from "./venue-settings.js";

/** The venue adapter the settings name, writing its records to `report`. */
export function venueOf(v: VenueSettings): (report: VenueReport) => LedgerVenue {
  return (report) => {
    const c = v.credentials;
    if (v.adapter === "fix")
      return new FixVenue({
        host: v.host,
        port: v.port,
        username: c.username,
        password: c.password,
        ...(v.senderCompId ? { senderCompId: v.senderCompId } : {}),
        report,
      });
    const api = `http://${v.host}:${v.port}/api/v3`;
    const exchange = new ccxt.binance({
      apiKey: c.apiKey,
      secret: c.apiSecret,
      urls: { api: { public: api, private: api, v1: api } },
      options: { fetchMarkets: { types: ["spot"] }, fetchMargins: false, fetchCurrencies: false },
    });
    return new CcxtVenue({ exchange, report });
  };
}

/** A refusal to build a runner for this bot (strategy code, no symbol): says what to change. */
export class RunnerUnbuildable extends Error {
  override name = "RunnerUnbuildable";
}

/**
 * The runner of one bot (a built-in family on the first symbol of its universe) at a venue: the
 * same for a runner workload (live-main.ts) and one the bots service hosts in its own process.
 */
export function liveRunnerOfBot(o: {
  bot: BotRow;
  mode: LiveMode;
  taskId: string;
  approvedPromotion: string;
  strategyDigest?: string;
  db: Kysely<BotsDatabase>;
  schema: string;
  publicKeyPem: string | undefined;
  license?: LicenseGate;
  venue: VenueSettings;
  barMs: number;
  fence?: LeaseFence;
  mayTrade?: () => boolean;
}): LiveRunner {
  const spec = storedToSpec(o.bot.spec);
  if (spec.strategy?.code)
    throw new RunnerUnbuildable(
      "strategy code is not run by a live runner yet: deploy a built-in family",
    );
  const symbol = spec.universe?.symbols[0];
  if (!symbol) throw new RunnerUnbuildable("the bot's universe names no symbol");
  const { family, params } = resolveStrategy(
    spec.strategy?.family ?? "",
    spec.strategy?.parameters as Record<string, unknown> | undefined,
  );
  const strategy = family.create(params);
  const row = allocateBars(1);
  const settings = engineSettingsFrom(spec.engine);
  const publicKey = o.publicKeyPem
    ? statementKeysFromPem({ publicKeyPem: o.publicKeyPem }).publicKey
    : undefined;
  return new LiveRunner({
    mode: o.mode,
    bot: {
      id: o.bot.id,
      slug: o.bot.slug,
      specHash: o.bot.spec_hash,
      ...(o.strategyDigest ? { strategyDigest: o.strategyDigest } : {}),
    },
    taskId: o.taskId,
    approvedPromotion: o.approvedPromotion,
    verifyPromotion: (token, b) =>
      assertApprovedPromotion({ db: o.db, schema: o.schema, publicKey }, token, b),
    ...(o.license ? { license: o.license } : {}),
    venue: venueOf(o.venue),
    db: o.db,
    schema: o.schema,
    ...(o.fence ? { fence: o.fence } : {}),
    ...(o.mayTrade ? { mayTrade: o.mayTrade } : {}),
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
    barMs: o.barMs,
    reconcileEveryMs: 5_000,
  });
}
