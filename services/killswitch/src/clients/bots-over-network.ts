import { BotsService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import type { Config } from "@svc/lib/config";
import { peerClient } from "@svc/lib/server";
import type { Logger } from "@svc/lib/telemetry";
import type { BotExists } from "../handlers/kill-switch-handlers.js";
import { botExistsFrom } from "./bot-exists.js";
import { drillRosterFrom, type DrillRoster } from "./drill-roster.js";

/**
 * The standalone killswitch service's way to the bots service: Connect over gRPC to
 * SVC_BOTS_URL, for bot targets the projection has not seen yet and for a drill's roster. Under
 * local auth (loopback only) the call names the caller with the local-user header; under OIDC it
 * carries the killswitch service's machine token (SVC_SERVICE_CLIENT_*), and without one it goes
 * without: unknown bot targets are refused and drills answer 503, and it says so at start-up.
 */
export function botsOverNetwork(
  config: Pick<Config, "serviceUrls" | "auth" | "serviceIdentity" | "timeouts">,
  log: Logger,
): { botExists?: BotExists; drillRoster?: DrillRoster } {
  const peer = peerClient(BotsService, config.serviceUrls.bots, "killswitch", config);
  if (peer.missing === "url") {
    log.warn(
      "SVC_BOTS_URL is not set: the killswitch service cannot ask the bots service, so drills answer 503 bot_unverifiable and bot targets must be known from the bots service's events",
    );
    return {};
  }
  if (peer.missing === "credentials") {
    log.error(
      { url: peer.url },
      "the killswitch service has no machine credentials (SVC_SERVICE_CLIENT_ID/_SECRET) to call the bots service under SVC_AUTH_PROVIDER=oidc: drills answer 503 bot_unverifiable",
    );
    return {};
  }
  const { client, url } = peer;
  log.info({ url }, "drills and bot targets are asked of the bots service over Connect");
  return {
    botExists: botExistsFrom(client, config.timeouts.dbMs),
    drillRoster: drillRosterFrom(client, config.timeouts.dbMs),
  };
}
