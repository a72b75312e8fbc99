import { Code, ConnectError, type Client } from "@connectrpc/connect";
import type { BotsService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import type { BotExists } from "../handlers/kill-switch-handlers.js";

/** Asks the bots service over Connect, with a deadline, whether a bot slug exists. */
export function botExistsFrom(client: Client<typeof BotsService>, timeoutMs: number): BotExists {
  return async (slug) => {
    try {
      const bot = await client.getBot({ botRef: slug }, { timeoutMs });
      return bot.slug === slug;
    } catch (err) {
      if (err instanceof ConnectError && err.code === Code.NotFound) return false;
      throw err;
    }
  };
}
