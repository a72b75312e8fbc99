import { BotsService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { KillSwitchService } from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import type { Config } from "@svc/lib/config";
import { peerClient } from "@svc/lib/server";
import type { Logger } from "@svc/lib/telemetry";
import { reportDeadlineMs, reportSourcesFrom, type ReportSources } from "./report-sources.js";

/**
 * The standalone compliance service's way to what a report is made of: the bots service
 * (SVC_BOTS_URL: bots and runs) and the killswitch service (SVC_KILLSWITCH_URL: drills), over
 * Connect as the compliance service (under OIDC with its own machine token). Without either, or
 * under OIDC without SVC_SERVICE_CLIENT_*, reports answer 503 and it says so at start-up.
 */
export function reportSourcesOverNetwork(
  config: Pick<Config, "serviceUrls" | "auth" | "serviceIdentity" | "timeouts">,
  log: Logger,
): { reportSources?: ReportSources } {
  const bots = peerClient(BotsService, config.serviceUrls.bots, "compliance", config);
  const killswitch = peerClient(
    KillSwitchService,
    config.serviceUrls.killswitch,
    "compliance",
    config,
  );
  if (!bots.client || !killswitch.client) {
    log.warn(
      { bots: bots.missing ?? "ok", killswitch: killswitch.missing ?? "ok" },
      "validation reports need the bots service (SVC_BOTS_URL) and the killswitch service (SVC_KILLSWITCH_URL), and under OIDC this service's credentials (SVC_SERVICE_CLIENT_ID/_SECRET): they answer 503 here",
    );
    return {};
  }
  log.info(
    { bots: bots.url, killswitch: killswitch.url },
    "validation reports are made from the bots and killswitch services over Connect",
  );
  return {
    reportSources: reportSourcesFrom(bots.client, killswitch.client, reportDeadlineMs(config)),
  };
}
