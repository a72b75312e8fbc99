import type { Interceptor } from "@connectrpc/connect";
import { principalKey } from "./principal.js";

/**
 * For a transport that never leaves the process (all-in-one wiring of one service calling
 * another): the caller is the named service itself, no token is involved. Never mount it on a
 * network listener: it trusts every call it sees.
 */
export function createServicePrincipalInterceptor(service: string): Interceptor {
  return (next) => async (req) => {
    req.contextValues.set(principalKey, {
      sub: `service|${service}`,
      actorType: "machine",
      delegated: false,
      roles: [],
      scopes: [],
      amr: [],
    });
    return next(req);
  };
}
