import type { Client } from "@connectrpc/connect";
import { KillSwitchService } from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import type { Config } from "@svc/lib/config";
import { peerClient } from "@svc/lib/server";
import type { Logger } from "@svc/lib/telemetry";
import type { KillSwitchCheck } from "../handlers/promotion-handlers.js";

/**
 * Asks the killswitch service (the owner of the switches) over Connect, with a deadline, which
 * keys engage a bot; throws when it cannot be asked, and the gates then answer 503.
 */
export function killSwitchFrom(
  client: Client<typeof KillSwitchService>,
  timeoutMs: number,
): KillSwitchCheck {
  return async (slug, fleet) =>
    (await client.checkEngaged({ botSlug: slug ?? "", fleet: fleet ?? "" }, { timeoutMs }))
      .engagedKeys;
}

/** The check of a promotion service that has no killswitch service to ask: it always throws. */
export function killSwitchUnwired(why: string): KillSwitchCheck {
  return () => Promise.reject(new Error(why));
}

/**
 * The standalone promotion service's way to the killswitch service: Connect over gRPC to
 * SVC_KILLSWITCH_URL. Under local auth (loopback only) the call carries no token and names the
 * caller with the local-user header; under OIDC it carries the promotion service's own machine
 * token (SVC_SERVICE_CLIENT_*), and without one the gate fails closed, and says so at start-up.
 */
export function killSwitchOverNetwork(
  config: Pick<Config, "serviceUrls" | "auth" | "serviceIdentity" | "timeouts">,
  log: Logger,
): KillSwitchCheck {
  const peer = peerClient(KillSwitchService, config.serviceUrls.killswitch, "promotion", config);
  if (peer.missing === "url") {
    log.warn(
      "SVC_KILLSWITCH_URL is not set: the promotion service cannot ask the killswitch service, so its kill-switch gate fails closed (submissions and approvals answer 503 killswitch_unverifiable)",
    );
    return killSwitchUnwired("no killswitch service is configured (SVC_KILLSWITCH_URL)");
  }
  if (peer.missing === "credentials") {
    log.error(
      { url: peer.url },
      "the promotion service has no machine credentials (SVC_SERVICE_CLIENT_ID/_SECRET) to call the killswitch service under SVC_AUTH_PROVIDER=oidc: its kill-switch gate fails closed (submissions and approvals answer 503 killswitch_unverifiable)",
    );
    return killSwitchUnwired("the promotion service cannot authenticate to the killswitch service");
  }
  log.info({ url: peer.url }, "the kill-switch gate asks the killswitch service over Connect");
  const { client } = peer;
  return killSwitchFrom(client, config.timeouts.kvMs * 3);
}
