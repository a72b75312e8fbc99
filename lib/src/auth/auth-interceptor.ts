import type { Interceptor } from "@connectrpc/connect";
import { decodeJwt } from "jose";
import { AuthMode } from "@svc/gen/svc/api/v1/annotations_pb.js";
import { Code, svcError } from "../errors/index.js";
import { createPolicyLookup } from "./auth-policy.js";
import {
  createDelegatedScopeGuard,
  delegatedScopeRevoked,
  type DelegatedScopeGuard,
} from "./delegated-scopes.js";
import { bearerOf, missingBearer } from "./bearer.js";
import { callKindOf } from "../deadline/index.js";
import { localPrincipal } from "./local-provider.js";
import {
  assumedMembershipKey,
  freshMembershipCheckKey,
  type HaltMembershipLookup,
} from "./membership-lookup.js";
import {
  bearerRejectionKey,
  hasScope,
  principalKey,
  refusedPrincipalKey,
  type Principal,
} from "./principal.js";
import type { AuthSettings } from "./settings.js";
import { assertSteppedUp } from "./step-up.js";
import { serviceOfClient, servicePrincipal } from "./service-identity.js";
import { callerNotAllowed } from "./service-principal.js";
import type { TokenVerifier } from "./token-verifier.js";

/**
 * Whether a principal has membership rows (for an agent: the person it acts for); owned by the
 * identity service. `forHalt`, when given, answers for a halt without waiting on identity;
 * `fresh`, for a release, asks identity past any cache (membership-lookup.ts).
 */
export type MembershipLookup = ((p: Principal) => Promise<boolean>) & {
  forHalt?: HaltMembershipLookup;
  /** Asks the identity service past any cache: the check of a release. */
  fresh?: (p: Principal) => Promise<boolean>;
};

/** What the auth interceptor needs: the settings, a verifier, and optionally the membership lookup. */
export interface AuthInterceptorOptions {
  settings: AuthSettings;
  verifier: TokenVerifier;
  hasMembership?: MembershipLookup;
  /** What each person holds now, for their delegations; one of this interceptor's own if not given. */
  delegatedScopes?: DelegatedScopeGuard;
}

/**
 * The one interceptor that enforces each RPC's `(svc.api.v1.auth)` policy. Order of checks,
 * cheapest and least revealing first:
 * 0. SVC_AUTH_PROVIDER=local: a bearer token is refused (401: it would be ignored, a false sense
 *    of security); otherwise the local user (x-svc-local-user picks another) passes every policy;
 * 1. policy lookup (a method without one needs a user token);
 * 2. public routes pass; a valid token, if sent, still names the caller, a bad one is ignored;
 * 3. a bearer token must be present and well formed (401 unauthenticated, Bearer challenge);
 * 3a. a token for this service's own audience (SVC_SERVICE_*: a peer service's machine token)
 *    must verify against it, and its service must be among the RPC's callers (403
 *    caller_not_allowed); scopes, step-up and membership are a person's checks, not a service's;
 * 4. a machine route needs SVC_AUTH_M2M_ENABLED (403 m2m_disabled), then the token must verify
 *    against the machine audience on a machine route and the API audience elsewhere (401
 *    invalid_token, 503 jwks_unreachable), and be of the route's kind: a user token on a
 *    machine route and a machine token on a user route are refused (403);
 * 5. an agent token needs agent tokens enabled and a route that allows agents (403); its scopes
 *    are cut to what its person still holds, as far as a newer token of theirs says;
 * 6. every scope of the policy (403 missing_scope naming the first missing one, or
 *    delegated_scope_revoked when the agent's person no longer holds it);
 * 7. step-up, RFC 9470 (401 insufficient_user_authentication with its challenge);
 * 8. membership rows, when a lookup is given and the policy does not make them optional (accepting
 *    an invite: 403 membership_required otherwise); permissive enforcement
 *    lets read-only routes through, and a machine caller (the login hook provisioning members)
 *    has none to check; a halt (`call_kind` HALT) never waits on the identity service: it goes
 *    by the last known memberships, or the scope alone when none is known, and says so in the
 *    context (assumedMembershipKey) for the audit trail; a release (`call_kind` RELEASE) asks
 *    identity afresh, never a cache;
 * 9. the principal goes into the context values (principalOf) and the handler runs.
 *
 * @example createRouterTransport(routes, { router: { interceptors: [createAuthInterceptor({ settings, verifier })] } });
 */
export function createAuthInterceptor(opts: AuthInterceptorOptions): Interceptor {
  const { settings, verifier, hasMembership } = opts;
  const delegatedScopes = opts.delegatedScopes ?? createDelegatedScopeGuard();
  const policyOf = createPolicyLookup();
  return (next) => async (req) => {
    if (settings.provider === "local") {
      if (req.header.has("authorization")) {
        throw svcError(
          Code.Unauthenticated,
          "invalid_token",
          "bearer tokens are not accepted: the platform runs with SVC_AUTH_PROVIDER=local, which trusts every caller; drop the Authorization header (x-svc-local-user picks a local user)",
        );
      }
      req.contextValues.set(principalKey, localPrincipal(req.header));
      return next(req);
    }

    const policy = policyOf(req.method);
    if (policy.mode === AuthMode.PUBLIC) {
      const token = optionalBearer(req.header.get("authorization"));
      if (token)
        req.contextValues.set(
          principalKey,
          await verifier.verify(token, "user").catch((err: unknown) => {
            req.contextValues.set(bearerRejectionKey, err);
            return undefined;
          }),
        );
      return next(req);
    }

    const token = bearerOf(req.header.get("authorization"));
    if (token === undefined) throw missingBearer();

    if (settings.serviceAudience && audiencesOf(token).includes(settings.serviceAudience)) {
      // A peer service's own machine token: it may call only what the proto lists it for.
      const verified = await verifier.verify(token, "service");
      const caller = serviceOfClient(verified.sub) ?? verified.sub;
      if (!policy.callers.includes(caller))
        throw callerNotAllowed(caller, req.method, policy.callers);
      req.contextValues.set(principalKey, servicePrincipal(caller));
      return next(req);
    }

    const machineRoute = policy.mode === AuthMode.MACHINE;
    if (machineRoute && !settings.m2mEnabled) {
      throw svcError(
        Code.PermissionDenied,
        "m2m_disabled",
        "machine-to-machine tokens are not accepted: set SVC_AUTH_M2M_ENABLED=true",
      );
    }
    const verified = await verifier.verify(token, machineRoute ? "machine" : "user");
    let principal = verified;
    if (machineRoute && principal.actorType !== "machine") {
      throw svcError(
        Code.PermissionDenied,
        "machine_token_required",
        "this internal route takes a machine-to-machine token from the client_credentials grant, not a user token",
      );
    }
    if (!machineRoute && principal.actorType === "machine") {
      throw svcError(
        Code.PermissionDenied,
        "user_token_required",
        "this route acts for a person; a machine token cannot call it",
      );
    }

    delegatedScopes.observe(principal);
    let revoked: string[] = [];
    if (principal.actorType === "agent") {
      if (!settings.agentTokensEnabled)
        throw svcError(
          Code.PermissionDenied,
          "agent_tokens_disabled",
          "delegated agent tokens are not accepted: set SVC_AUTH_AGENT_TOKEN_EXCHANGE_ENABLED=true",
        );
      if (!policy.allowAgent)
        throw svcError(
          Code.PermissionDenied,
          "agent_not_allowed",
          `an agent acting for ${principal.onBehalfOfSub} may not call ${req.method.name}; a person must`,
        );
      revoked = delegatedScopes.revoked(principal);
      if (revoked.length > 0)
        principal = { ...verified, scopes: verified.scopes.filter((s) => !revoked.includes(s)) };
    }

    const missing = policy.scopes.find((s) => !hasScope(principal, s));
    if (missing && revoked.includes(missing)) throw delegatedScopeRevoked(principal, missing);
    if (missing) {
      throw svcError(
        Code.PermissionDenied,
        "missing_scope",
        `the token lacks the scope ${missing}`,
        { scope: missing, required: [...policy.scopes] },
      );
    }

    if (policy.stepUp) {
      // Known before the refusal, so whoever records a refused step-up can name the caller.
      req.contextValues.set(refusedPrincipalKey, principal);
      assertSteppedUp(principal, settings);
    }

    const membershipChecked =
      hasMembership &&
      principal.actorType !== "machine" &&
      !policy.membershipOptional &&
      !(settings.enforce === "permissive" && policy.readOnly);
    const kind = membershipChecked ? callKindOf(req.method) : undefined;
    const verdict = !membershipChecked
      ? undefined
      : hasMembership.forHalt && kind === "halt"
        ? await hasMembership.forHalt(principal)
        : {
            member: await (kind === "release" && hasMembership.fresh
              ? hasMembership.fresh(principal)
              : hasMembership(principal)),
            source: "verified" as const,
          };
    if (verdict?.member && verdict.source !== "verified")
      req.contextValues.set(
        assumedMembershipKey,
        verdict.source === "cached"
          ? { source: "cached", ageMs: verdict.ageMs }
          : { source: "unverified_halt" },
      );
    if (verdict && !verdict.member) {
      throw svcError(
        Code.PermissionDenied,
        "membership_required",
        `${principal.sub} has no membership in this organization; an administrator must invite you`,
      );
    }

    if (membershipChecked && hasMembership.fresh) {
      const fresh = hasMembership.fresh;
      req.contextValues.set(freshMembershipCheckKey, () => fresh(principal));
    }
    req.contextValues.set(principalKey, principal);
    return next(req);
  };
}

/**
 * The token's audiences, read without trusting it: only to pick the audience it is then verified
 * against (a forged aud fails that verification like any other).
 */
function audiencesOf(token: string): string[] {
  try {
    const { aud } = decodeJwt(token);
    return aud === undefined ? [] : Array.isArray(aud) ? aud : [aud];
  } catch {
    return [];
  }
}

/** On a public route a malformed header is no reason to refuse: the route needs no caller. */
function optionalBearer(header: string | null): string | undefined {
  try {
    return bearerOf(header);
  } catch {
    return undefined;
  }
}
