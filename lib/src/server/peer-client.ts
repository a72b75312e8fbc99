import type { DescService } from "@bufbuild/protobuf";
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { LOCAL_USER_HEADER } from "../auth/index.js";

/** A standalone service's client of a peer, or why it has none. */
export type PeerClient<S extends DescService> =
  | { client: Client<S>; url: string; missing?: undefined }
  | { client?: undefined; missing: "url"; url?: undefined }
  | { client?: undefined; missing: "credentials"; url: string };

/**
 * How a standalone service reaches a peer service: Connect over gRPC to the peer's URL
 * (`SVC_<PEER>_URL`). Under local auth (loopback only) the call names the caller with the
 * local-user header; under OIDC a service has no machine token to present yet (service identity
 * is not built), so there is no client and the caller says so at start-up and fails closed.
 *
 * @example const bots = peerClient(BotsService, config.serviceUrls.bots, "killswitch", config.auth.provider);
 */
export function peerClient<S extends DescService>(
  service: S,
  url: string | undefined,
  caller: string,
  authProvider: "local" | "oidc",
): PeerClient<S> {
  if (!url) return { missing: "url" };
  if (authProvider !== "local") return { missing: "credentials", url };
  const asCaller: Interceptor = (next) => (req) => {
    req.header.set(LOCAL_USER_HEADER, caller);
    return next(req);
  };
  return {
    client: createClient(service, createGrpcTransport({ baseUrl: url, interceptors: [asCaller] })),
    url,
  };
}
