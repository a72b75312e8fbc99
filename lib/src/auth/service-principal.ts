import type { DescMethod } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { Code, svcError } from "../errors/index.js";
import { createPolicyLookup } from "./auth-policy.js";
import { principalKey } from "./principal.js";
import { servicePrincipal } from "./service-identity.js";

/**
 * 403 caller_not_allowed: the RPC's policy does not list the calling service among its callers.
 * A service may call another only where the proto says so, in one process or over the network.
 */
export function callerNotAllowed(service: string, method: DescMethod, allowed: readonly string[]) {
  return svcError(
    Code.PermissionDenied,
    "caller_not_allowed",
    `the ${service} service may not call ${method.parent.typeName}/${method.name}; its callers are ${allowed.length > 0 ? allowed.join(", ") : "none (people only)"}`,
    { caller: service, callers: [...allowed] },
  );
}

/**
 * For a transport that never leaves the process (all-in-one wiring of one service calling
 * another): the caller is the named service itself, no token is involved, and it may call only
 * the RPCs whose policy lists it among their callers. Never mount it on a network listener: it
 * trusts that the call comes from that service.
 */
export function createServicePrincipalInterceptor(service: string): Interceptor {
  const policyOf = createPolicyLookup();
  return (next) => async (req) => {
    const { callers } = policyOf(req.method);
    if (!callers.includes(service)) throw callerNotAllowed(service, req.method, callers);
    req.contextValues.set(principalKey, servicePrincipal(service));
    return next(req);
  };
}
