import { BotsService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import type { Config } from "@svc/lib/config";
import { peerClient } from "@svc/lib/server";
import type { Logger } from "@svc/lib/telemetry";
import { startRunFrom, type StartRun } from "./start-run.js";

/**
 * The standalone compliance service's way to the bots service: Connect over gRPC to
 * SVC_BOTS_URL, named by the local-user header under local auth. Under OIDC a service has no
 * machine token to present yet (as for the killswitch service), so runs answer 503 and it says
 * so at start-up.
 */
export function botsOverNetwork(
  config: Pick<Config, "serviceUrls" | "auth" | "serviceIdentity" | "timeouts">,
  log: Logger,
): { startRun?: StartRun } {
  const peer = peerClient(BotsService, config.serviceUrls.bots, "compliance", config);
  if (peer.missing === "url") {
    log.warn(
      "SVC_BOTS_URL is not set: the compliance service cannot ask the bots service, so conformance and stress runs answer 503 bots_unreachable",
    );
    return {};
  }
  if (peer.missing === "credentials") {
    log.error(
      { url: peer.url },
      "the compliance service has no machine credentials (SVC_SERVICE_CLIENT_ID/_SECRET) to call the bots service under SVC_AUTH_PROVIDER=oidc: conformance and stress runs answer 503 bots_unreachable",
    );
    return {};
  }
  const { client, url } = peer;
  log.info({ url }, "conformance and stress runs are asked of the bots service over Connect");
  return { startRun: startRunFrom(client, runDeadlineMs(config)) };
}

/** Starting a run reads the bot, its limits and (stress) its data set before answering. */
export const runDeadlineMs = (config: Pick<Config, "timeouts">) => config.timeouts.dbMs * 3;
