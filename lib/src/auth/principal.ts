import { createContextKey, type HandlerContext } from "@connectrpc/connect";
import { Code, svcError } from "../errors/index.js";

/** Who is calling, as every handler sees it. */
export interface Principal {
  sub: string;
  actorType: "user" | "agent" | "machine" | "local";
  /** For an agent: the human user it acts for (the token's sub). */
  onBehalfOfSub?: string;
  /** For an agent: act.sub, which starts with agent|. */
  agentSubject?: string;
  delegated: boolean;
  orgId?: string;
  teamId?: string;
  workspaceId?: string;
  projectId?: string;
  labId?: string;
  internalUserId?: string;
  connection?: string;
  roles: string[];
  scopes: string[];
  acr?: string;
  amr: string[];
  /** Seconds since the epoch. */
  authTime?: number;
  /** Seconds since the epoch: when the token stops being valid. */
  expiresAt?: number;
  /** Seconds since the epoch: when the token was issued (iat). */
  issuedAt?: number;
}

/** Set by the auth interceptor on every call that passed its policy. */
export const principalKey = createContextKey<Principal | undefined>(undefined, {
  description: "principal",
});

/**
 * Why a bearer token sent to a public route was not taken (invalid, or the key set unreachable).
 * The route still runs; a handler that needs a caller after all answers with this error, so an
 * outage of the provider reads as 503 jwks_unreachable rather than as a missing token.
 */
export const bearerRejectionKey = createContextKey<unknown>(undefined, {
  description: "bearer rejection",
});

/**
 * The verified caller of an RPC the auth interceptor went on to refuse (a step-up not fresh
 * enough): the audit of the refusal names it; no handler ever sees it.
 */
export const refusedPrincipalKey = createContextKey<Principal | undefined>(undefined, {
  description: "refused principal",
});

/** The caller of the current RPC; a handler reached without one is a wiring bug, answered 401. */
export function principalOf(ctx: HandlerContext): Principal {
  const p = ctx.values.get(principalKey);
  if (!p)
    throw svcError(
      Code.Unauthenticated,
      "unauthenticated",
      "this call needs an authenticated caller",
    );
  return p;
}

/**
 * True when the principal holds `scope`, compared literally: a token's "*" is the scope named
 * "*" and grants nothing else, since an identity provider may let anyone mint such a string.
 * Only the local user of SVC_AUTH_PROVIDER=local, which no token can claim to be, holds them all.
 */
export function hasScope(p: Principal, scope: string): boolean {
  return p.actorType === "local" || p.scopes.includes(scope);
}
