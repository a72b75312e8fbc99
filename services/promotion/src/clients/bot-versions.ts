import { Code, ConnectError, type Client } from "@connectrpc/connect";
import { BotsService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import type { Config } from "@svc/lib/config";
import { allPages, MAX_PAGE_SIZE } from "@svc/lib/paging";
import { peerClient } from "@svc/lib/server";
import type { Logger } from "@svc/lib/telemetry";
import type { BotVersionLookup } from "../handlers/promotion-handlers.js";
import { modelDigestsText } from "../consumers/bots-events.js";
import type { TrialReturnsLookup } from "../handlers/ledger-returns.js";

/**
 * Asks the bots service (the owner of bot versions) over Connect, with a deadline: the answer
 * the promotion gates fall back on when their projection of the bots events lags.
 */
export function botVersionsFrom(
  client: Client<typeof BotsService>,
  timeoutMs: number,
): BotVersionLookup {
  return async (botRef, version) => {
    try {
      const bot = await client.getBot({ botRef }, { timeoutMs });
      const versions = await allPages((pageToken) =>
        client.listBotVersions({ botRef, limit: MAX_PAGE_SIZE, pageToken }, { timeoutMs }),
      );
      const found = versions.find((v) => v.version === version);
      return found
        ? {
            bot_id: bot.id,
            slug: bot.slug,
            fleet: bot.fleet,
            version,
            spec_hash: found.specHash,
            strategy_digest: found.strategyDigest || null,
            model_digests: modelDigestsText(
              Object.fromEntries(
                (found.spec?.models ?? []).filter((m) => m.digest).map((m) => [m.name, m.digest]),
              ),
            ),
          }
        : null;
    } catch (err) {
      if (err instanceof ConnectError && err.code === Code.NotFound) return null;
      throw err;
    }
  };
}

/**
 * The standalone promotion service's way to the bots service (SVC_BOTS_URL), as itself: a bot
 * created a moment ago is then gated on the owner's answer instead of being refused until the
 * bots events reach the projection. Without it, such a submission answers 503
 * artifact_unverifiable (send it again), and the start-up log says so.
 */
export function botVersionsOverNetwork(
  config: Pick<Config, "serviceUrls" | "auth" | "serviceIdentity" | "timeouts">,
  log: Logger,
): BotVersionLookup | undefined {
  const peer = peerClient(BotsService, config.serviceUrls.bots, "promotion", config);
  if (!peer.client) {
    log.warn(
      { bots: peer.missing },
      "the promotion service cannot ask the bots service (SVC_BOTS_URL, and under OIDC SVC_SERVICE_CLIENT_ID/_SECRET): a bot version its projection has not seen yet answers 503 artifact_unverifiable until the bots events arrive",
    );
    return undefined;
  }
  return botVersionsFrom(peer.client, config.timeouts.dbMs);
}

/** The trials' daily returns from the bots service (GetTrialReturns), with a deadline. */
export function trialReturnsFrom(
  client: Client<typeof BotsService>,
  timeoutMs: number,
): TrialReturnsLookup {
  return async (trialIds) => {
    const res = await client.getTrialReturns({ trialIds }, { timeoutMs });
    return res.items.map((i) => ({ trialId: i.trialId, dailyReturns: i.dailyReturns }));
  };
}

/** The standalone promotion service's way to the trials' returns; see botVersionsOverNetwork. */
export function trialReturnsOverNetwork(
  config: Pick<Config, "serviceUrls" | "auth" | "serviceIdentity" | "timeouts">,
  log: Logger,
): TrialReturnsLookup | undefined {
  const peer = peerClient(BotsService, config.serviceUrls.bots, "promotion", config);
  if (!peer.client) {
    log.warn(
      { bots: peer.missing },
      "the promotion service cannot ask the bots service for trials' daily returns: with SVC_TRIAL_LEDGER_N_ENFORCE a request for a bot whose trials it has not read yet answers 503 trial_returns_unavailable",
    );
    return undefined;
  }
  return trialReturnsFrom(peer.client, config.timeouts.dbMs);
}
