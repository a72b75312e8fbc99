import { createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { BotsService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { KillSwitchService } from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { LOCAL_USER_HEADER } from "@svc/lib/auth";
import type { Config } from "@svc/lib/config";
import type { Logger } from "@svc/lib/telemetry";
import { reportDeadlineMs, reportSourcesFrom, type ReportSources } from "./report-sources.js";

/**
 * The standalone compliance service's way to what a report is made of: the bots service
 * (SVC_BOTS_URL) and the killswitch service (SVC_KILLSWITCH_URL), over Connect, named by the
 * local-user header under local auth. Without both, or under OIDC (no machine token to present
 * yet), reports answer 503 and it says so at start-up.
 */
export function reportSourcesOverNetwork(
  config: Pick<Config, "serviceUrls" | "auth" | "timeouts">,
  log: Logger,
): { reportSources?: ReportSources } {
  const { bots, killswitch } = config.serviceUrls;
  if (!bots || !killswitch || config.auth.provider !== "local") {
    log.warn(
      { bots, killswitch, auth: config.auth.provider },
      "validation reports need SVC_BOTS_URL and SVC_KILLSWITCH_URL under local auth: they answer 503 bots_unreachable here",
    );
    return {};
  }
  const asCompliance: Interceptor = (next) => (req) => {
    req.header.set(LOCAL_USER_HEADER, "compliance");
    return next(req);
  };
  const transport = (baseUrl: string) =>
    createGrpcTransport({ baseUrl, interceptors: [asCompliance] });
  return {
    reportSources: reportSourcesFrom(
      createClient(BotsService, transport(bots)),
      createClient(KillSwitchService, transport(killswitch)),
      reportDeadlineMs(config),
    ),
  };
}
