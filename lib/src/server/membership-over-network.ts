import { IdentityService } from "@svc/gen/svc/identity/v1/identity_pb.js";
import { createMembershipLookup } from "../auth/index.js";
import { MEMBERSHIP_CHECK_MS } from "../deadline/index.js";
import type { Logger } from "../telemetry/index.js";
import { peerClient, type PeerConfig } from "./peer-client.js";
import type { Platform } from "./platform.js";

const MEMBER_CACHE_MS = 30_000;
const NON_MEMBER_CACHE_MS = 2_000;

/**
 * SVC_AUTH_ENFORCE in a service that runs apart from identity: membership rows are asked of the
 * identity service (ListMembershipsOf at SVC_IDENTITY_URL, with this service's own machine
 * token), cached briefly, and refused 503 membership_unverifiable when it does not answer in
 * time (MEMBERSHIP_CHECK_MS); a halt goes by the last known memberships instead
 * (membership-lookup.ts). Without an address or credentials nothing is wired and the check keeps failing closed.
 */
export function membershipOverNetwork(
  platform: Pick<Platform, "useMembershipLookup">,
  caller: string,
  config: PeerConfig & { serviceUrls: { identity?: string } },
  log: Logger,
): void {
  const peer = peerClient(IdentityService, config.serviceUrls.identity, caller, config);
  if (!peer.client) {
    log.warn(
      { missing: peer.missing },
      "membership rows cannot be asked of the identity service (SVC_IDENTITY_URL, SVC_SERVICE_CLIENT_*): callers that need them are refused 503 membership_unverifiable",
    );
    return;
  }
  const identity = peer.client;
  // Short: a caller refused for want of identity learns it in two seconds, not at its deadline.
  const timeoutMs = MEMBERSHIP_CHECK_MS;
  platform.useMembershipLookup(
    createMembershipLookup({
      countOf: async (subject) =>
        (await identity.listMembershipsOf({ subject }, { timeoutMs })).memberships.length,
      ttlMs: MEMBER_CACHE_MS,
      negativeTtlMs: NON_MEMBER_CACHE_MS,
      timeoutMs,
    }),
  );
}
