import { Code, ConnectError, type Client } from "@connectrpc/connect";
import type { BotsService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { allPages, MAX_PAGE_SIZE } from "@svc/lib/paging";
import type { BotVersionLookup } from "../handlers/promotion-handlers.js";

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
        ? { bot_id: bot.id, slug: bot.slug, fleet: bot.fleet, version, spec_hash: found.specHash }
        : null;
    } catch (err) {
      if (err instanceof ConnectError && err.code === Code.NotFound) return null;
      throw err;
    }
  };
}
