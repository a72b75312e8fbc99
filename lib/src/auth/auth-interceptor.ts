import { getOption, type DescMethod } from "@bufbuild/protobuf";
import type { Interceptor } from "@connectrpc/connect";
import { auth as authOption, AuthMode, type AuthPolicy } from "@svc/gen/svc/api/v1/annotations_pb.js";
import { Code, svcError } from "../errors/index.js";
import { localPrincipal } from "./local-provider.js";
import { hasScope, principalKey, type Principal } from "./principal.js";
import type { AuthSettings } from "./settings.js";
import { assertSteppedUp } from "./step-up.js";
import type { TokenVerifier } from "./token-verifier.js";

/** Whether a principal has membership rows; owned by the identity service. */
export type MembershipLookup = (p: Principal) => Promise<boolean>;

/** The policy of an RPC; one without an annotation needs a user token (fail closed). */
export function policyOf(method: DescMethod): AuthPolicy {
  const policy = getOption(method, authOption) as AuthPolicy | undefined;
  return policy && policy.mode !== AuthMode.UNSPECIFIED ? policy : ({ mode: AuthMode.USER, scopes: [], stepUp: false, allowAgent: false, readOnly: false } as unknown as AuthPolicy);
}

/**
 * The one interceptor that enforces each RPC's `(svc.api.v1.auth)` policy. Order of checks:
 * 1. public routes pass (a valid token, if sent, still names the caller);
 * 2. a bearer token must be present (401) and verify as a user or machine token per the mode (401);
 * 3. a machine route needs SVC_AUTH_M2M_ENABLED and a machine token (403);
 * 4. an agent token needs agent tokens enabled and a route that allows agents (403);
 * 5. every scope of the policy (403 naming the first missing one);
 * 6. step-up (401 insufficient_user_authentication with WWW-Authenticate);
 * 7. in strict enforcement, membership rows (403); permissive lets read-only routes through.
 */
export function createAuthInterceptor(opts: { settings: AuthSettings; verifier: TokenVerifier; hasMembership?: MembershipLookup }): Interceptor {
  const { settings, verifier } = opts;
  return (next) => async (req) => {
    const policy = policyOf(req.method);
    const token = bearerOf(req.header.get("authorization"));

    if (settings.provider === "local") {
      if (token !== undefined) {
        throw svcError(Code.Unauthenticated, "invalid_token", "bearer tokens are not accepted: the platform runs with SVC_AUTH_PROVIDER=local; drop the Authorization header (x-svc-local-user picks a local user)");
      }
      req.contextValues.set(principalKey, localPrincipal(req.header));
      return next(req);
    }

    if (policy.mode === AuthMode.PUBLIC) {
      if (token) req.contextValues.set(principalKey, await verifier.verify(token, "user").catch(() => undefined));
      return next(req);
    }
    if (token === undefined) {
      throw svcError(Code.Unauthenticated, "unauthenticated", "this route needs a bearer access token (Authorization: Bearer <token>)", {}, { headers: { "www-authenticate": 'Bearer realm="svc"' } });
    }

    const machineRoute = policy.mode === AuthMode.MACHINE;
    if (machineRoute && !settings.m2mEnabled) {
      throw svcError(Code.PermissionDenied, "m2m_disabled", "machine-to-machine tokens are not accepted: set SVC_AUTH_M2M_ENABLED=true");
    }
    const principal = await verifier.verify(token, machineRoute ? "machine" : "user");
    if (machineRoute && principal.actorType !== "machine") {
      throw svcError(Code.PermissionDenied, "machine_token_required", "this internal route takes a machine-to-machine token from the client_credentials grant, not a user token");
    }
    if (!machineRoute && principal.actorType === "machine") {
      throw svcError(Code.PermissionDenied, "user_token_required", "this route acts for a person; a machine token cannot call it");
    }
    if (principal.actorType === "agent") {
      if (!settings.agentTokensEnabled) throw svcError(Code.PermissionDenied, "agent_tokens_disabled", "delegated agent tokens are not accepted: set SVC_AUTH_AGENT_TOKEN_EXCHANGE_ENABLED=true");
      if (!policy.allowAgent) throw svcError(Code.PermissionDenied, "agent_not_allowed", `an agent acting for ${principal.onBehalfOfSub} may not call ${req.method.name}; a person must`);
    }
    const required = policy.scopes;
    const missing = required.find((s) => !hasScope(principal, s));
    if (missing) {
      throw svcError(Code.PermissionDenied, "missing_scope", `the token lacks the scope ${missing}`, { scope: missing, required: [...required] });
    }
    if (policy.stepUp) assertSteppedUp(principal, settings.stepUpMaxAgeSeconds);
    if (opts.hasMembership && !(settings.enforce === "permissive" && policy.readOnly) && !(await opts.hasMembership(principal))) {
      throw svcError(Code.PermissionDenied, "membership_required", `${principal.sub} has no membership in this organization`);
    }
    req.contextValues.set(principalKey, principal);
    return next(req);
  };
}

function bearerOf(header: string | null): string | undefined {
  if (header === null) return undefined;
  const m = /^Bearer\s+([A-Za-z0-9._~+/=-]+)$/i.exec(header.trim());
  if (!m) throw svcError(Code.Unauthenticated, "unauthenticated", "the Authorization header must be: Bearer <access token>", {}, { headers: { "www-authenticate": 'Bearer realm="svc", error="invalid_request"' } });
  return m[1];
}
