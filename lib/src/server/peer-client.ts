import type { DescService } from "@bufbuild/protobuf";
import { createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { LOCAL_USER_HEADER, serviceOfTypeName, serviceTokens } from "../auth/index.js";
import type { Config } from "../config/index.js";
import { resilientTransport } from "./resilient-transport.js";

/** A standalone service's client of a peer, or why it has none. */
export type PeerClient<S extends DescService> =
  | { client: Client<S>; url: string; missing?: undefined }
  | { client?: undefined; missing: "url"; url?: undefined }
  | { client?: undefined; missing: "credentials"; url: string };

/** What a peer client reads of the configuration. */
export type PeerConfig = Pick<Config, "auth" | "serviceIdentity" | "timeouts">;

/**
 * How a standalone service reaches a peer service: Connect over gRPC to the peer's URL
 * (`SVC_<PEER>_URL`), as itself. Under local auth (loopback only) the call names the caller with
 * the local-user header; under OIDC it carries the caller's own machine token (client
 * credentials of SVC_SERVICE_CLIENT_ID, audience urn:svc:service:<peer>), and the peer lets it
 * call only what the proto lists it for. Without those credentials there is no client, and the
 * caller says so at start-up and fails closed. Every call has a deadline, capped by what is left
 * of the request being served; read-only methods are tried again when the peer is unavailable
 * (resilient-transport.ts).
 *
 * @example const bots = peerClient(BotsService, config.serviceUrls.bots, "killswitch", config);
 */
export function peerClient<S extends DescService>(
  service: S,
  url: string | undefined,
  caller: string,
  config: PeerConfig,
): PeerClient<S> {
  if (!url) return { missing: "url" };
  const asCaller = callerCredentials(serviceOfTypeName(service.typeName), caller, config);
  if (!asCaller) return { missing: "credentials", url };
  return {
    client: createClient(
      service,
      // A call its caller gives no deadline gets its kind's (lib/src/deadline/call-deadlines.ts).
      resilientTransport(createGrpcTransport({ baseUrl: url, interceptors: [asCaller] }), {}),
    ),
    url,
  };
}

function callerCredentials(
  callee: string,
  caller: string,
  config: PeerConfig,
): Interceptor | undefined {
  if (config.auth.provider === "local")
    return (next) => (req) => {
      req.header.set(LOCAL_USER_HEADER, caller);
      return next(req);
    };
  const { clientId, clientSecret } = config.serviceIdentity;
  if (!clientId || !clientSecret || !config.auth.issuer) return undefined;
  const tokens = serviceTokens({
    issuer: config.auth.issuer,
    clientId,
    clientSecret,
    timeoutMs: config.timeouts.dbMs,
  });
  return (next) => async (req) => {
    req.header.set("authorization", `Bearer ${await tokens.tokenFor(callee)}`);
    return next(req);
  };
}
