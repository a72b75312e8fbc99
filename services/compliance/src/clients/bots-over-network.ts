import { createClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { BotsService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { LOCAL_USER_HEADER } from "@svc/lib/auth";
import type { Config } from "@svc/lib/config";
import type { Logger } from "@svc/lib/telemetry";
import { startRunFrom, type StartRun } from "./start-run.js";

/**
 * The standalone compliance service's way to the bots service: Connect over gRPC to
 * SVC_BOTS_URL, named by the local-user header under local auth. Under OIDC a service has no
 * machine token to present yet (as for the killswitch service), so runs answer 503 and it says
 * so at start-up.
 */
export function botsOverNetwork(
  config: Pick<Config, "serviceUrls" | "auth" | "timeouts">,
  log: Logger,
): { startRun?: StartRun } {
  const url = config.serviceUrls.bots;
  if (!url) {
    log.warn(
      "SVC_BOTS_URL is not set: the compliance service cannot ask the bots service, so conformance and stress runs answer 503 bots_unreachable",
    );
    return {};
  }
  if (config.auth.provider !== "local") {
    log.error(
      { url },
      "the compliance service has no machine credentials to call the bots service under SVC_AUTH_PROVIDER=oidc: conformance and stress runs answer 503 bots_unreachable",
    );
    return {};
  }
  const asCompliance: Interceptor = (next) => (req) => {
    req.header.set(LOCAL_USER_HEADER, "compliance");
    return next(req);
  };
  const client = createClient(
    BotsService,
    createGrpcTransport({ baseUrl: url, interceptors: [asCompliance] }),
  );
  log.info({ url }, "conformance and stress runs are asked of the bots service over Connect");
  return { startRun: startRunFrom(client, runDeadlineMs(config)) };
}

/** Starting a run reads the bot, its limits and (stress) its data set before answering. */
export const runDeadlineMs = (config: Pick<Config, "timeouts">) => config.timeouts.dbMs * 3;
