/** The token-exchange profile agents are delegated through (sent as subject_token_profile). */
export const DELEGATION_PROFILE = "svc-agent-delegation";
export const TOKEN_EXCHANGE_GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
export const ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";
/** The only scopes a delegated token may carry. */
export const DELEGATION_SCOPES: readonly string[] = [
  "read:mcp:data",
  "write:mcp:data",
  "read:mcp:codebase",
  "write:mcp:codebase",
];

type Payload = Record<string, unknown>;

/** An RFC 8693 request as the provider has parsed and verified it (the tokens' payloads). */
export interface ExchangeRequest {
  /** The calling client: the agent broker, with the grants and profiles it is allowed. */
  client: { id: string; grants: readonly string[]; profiles: readonly string[] };
  profile?: string;
  subjectTokenType?: string;
  /** The verified payload of the person's access token. */
  subject?: unknown;
  /** The verified payload of the agent's token. */
  actor?: unknown;
  scopes: readonly string[];
  /**
   * What the person holds now in the provider's RBAC, when the provider can look it up at the
   * exchange: a permission taken away since the subject token was issued is then not delegated.
   * Without it, the subject token's permissions are all the profile knows.
   */
  personHoldsNow?: readonly string[];
}

export type ExchangeError =
  "invalid_request" | "unauthorized_client" | "invalid_target" | "invalid_grant" | "invalid_scope";

export type ExchangeResult =
  | { ok: true; claims: Payload; expiresIn: number }
  | { ok: false; error: ExchangeError; description: string };

/**
 * The svc-agent-delegation profile: who may exchange what for a delegated token, and what that
 * token says. The spec's rules, in order:
 * - the profile must be this one (400 invalid_request, profile not found);
 * - the broker must hold the token-exchange grant and no other profile (400 unauthorized_client);
 * - the subject token is an access token; subject and actor payloads are objects with a sub, and
 *   the actor's sub starts with agent| (the subject token is rejected: invalid_grant);
 * - the subject token is a person's own, for the API audience, still valid: not a machine's
 *   (client credentials), not an agent's, not already delegated (act), so a delegation is never
 *   delegated again; the actor token is the agent's own, for the API audience (invalid_grant);
 * - every requested scope is one of the four MCP scopes (400 invalid_target, scope rejected);
 * - of those, the token gets the ones the person holds (the subject token's permissions, and
 *   what the provider says they hold now when it can say); none held is 400 invalid_scope, and
 *   the answer's scope says which were granted (RFC 6749 5.1);
 * - the token is the person's (sub), for the API audience, with those scopes, act {sub, iss}, the
 *   svc_delegated marker and the person's org_id when the subject token had one; it lives the
 *   profile's lifetime or until the subject token expires, whichever comes first; no consent.
 */
export function delegate(
  req: ExchangeRequest,
  settings: {
    issuer: string;
    audience: string;
    ttlSeconds: number;
    claimsNamespace: string;
    now: () => number;
  },
): ExchangeResult {
  const refuse = (error: ExchangeError, description: string): ExchangeResult => ({
    ok: false,
    error,
    description,
  });
  if (req.profile !== DELEGATION_PROFILE)
    return refuse("invalid_request", `profile not found: ${JSON.stringify(req.profile ?? null)}`);
  if (!req.client.grants.includes(TOKEN_EXCHANGE_GRANT))
    return refuse("unauthorized_client", `client ${req.client.id} lacks the token-exchange grant`);
  const others = req.client.profiles.filter((p) => p !== DELEGATION_PROFILE);
  if (others.length > 0)
    return refuse(
      "unauthorized_client",
      `client ${req.client.id} is allowed other profiles (${others.join(", ")}); the broker may hold only ${DELEGATION_PROFILE}`,
    );
  if (req.subjectTokenType !== ACCESS_TOKEN_TYPE)
    return refuse("invalid_request", `subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
  const subject = subOf(req.subject);
  const actor = subOf(req.actor);
  if (!subject) return refuse("invalid_grant", "the subject token has no payload with a sub");
  if (!actor) return refuse("invalid_grant", "the actor token has no payload with a sub");
  if (!actor.sub.startsWith("agent|"))
    return refuse(
      "invalid_grant",
      `the actor's sub ${JSON.stringify(actor.sub)} does not start with agent|`,
    );
  const nowSeconds = Math.floor(settings.now() / 1000);
  const notAPerson = notAPersonsToken(subject, settings.audience, nowSeconds);
  if (notAPerson) return refuse("invalid_grant", `the subject token ${notAPerson}`);
  if (!audiencesOf(actor.payload).includes(settings.audience))
    return refuse(
      "invalid_grant",
      `the actor token is not for the API audience ${settings.audience}`,
    );
  if (actor.payload.act !== undefined)
    return refuse(
      "invalid_grant",
      "the actor token is itself delegated (act): an agent acts as itself",
    );
  if (req.scopes.length === 0)
    return refuse(
      "invalid_target",
      `scope rejected: request some of ${DELEGATION_SCOPES.join(", ")}`,
    );
  const rejected = req.scopes.filter((s) => !DELEGATION_SCOPES.includes(s));
  if (rejected.length > 0)
    return refuse(
      "invalid_target",
      `scope rejected: ${rejected.join(", ")} (allowed: ${DELEGATION_SCOPES.join(", ")})`,
    );
  const held = permissionsOf(subject.payload);
  const granted = [...new Set(req.scopes)].filter(
    (s) => held.has(s) && (req.personHoldsNow === undefined || req.personHoldsNow.includes(s)),
  );
  if (granted.length === 0)
    return refuse(
      "invalid_scope",
      `${subject.sub} holds none of ${req.scopes.join(", ")}: an agent gets only what its person holds`,
    );
  const orgId = subject.payload.org_id ?? subject.payload[`${settings.claimsNamespace}org_id`];
  // Never past the subject token: the person's own session ending ends the agent's.
  const exp = Math.min(nowSeconds + settings.ttlSeconds, subject.payload.exp as number);
  return {
    ok: true,
    expiresIn: exp - nowSeconds,
    claims: {
      iss: settings.issuer,
      sub: subject.sub,
      aud: settings.audience,
      iat: nowSeconds,
      exp,
      scope: granted.join(" "),
      permissions: granted,
      act: { sub: actor.sub, iss: settings.issuer },
      svc_delegated: true,
      ...(typeof orgId === "string" && orgId ? { org_id: orgId } : {}),
    },
  };
}

/**
 * Why the subject token is not a person's own access token for the API, or undefined when it is.
 * A machine token is one of the client_credentials grant: gty "client-credentials", a sub in
 * Auth0's client form (…@clients), or a sub equal to the client it was issued to (client_id or
 * azp: oidc-provider's and most providers' form).
 */
function notAPersonsToken(
  subject: { sub: string; payload: Payload },
  audience: string,
  nowSeconds: number,
): string | undefined {
  const { sub, payload } = subject;
  if (!audiencesOf(payload).includes(audience)) return `is not for the API audience ${audience}`;
  if (
    payload.gty === "client-credentials" ||
    sub.endsWith("@clients") ||
    sub === payload.client_id ||
    sub === payload.azp
  )
    return `is a machine's (${sub}), not a person's`;
  if (sub.startsWith("agent|")) return `is an agent's (${sub}), not a person's`;
  if (payload.act !== undefined || payload.svc_delegated !== undefined)
    return "is already delegated: a delegated token cannot be delegated again";
  if (typeof payload.exp !== "number" || payload.exp <= nowSeconds)
    return "has expired or says not when it expires";
  return undefined;
}

/**
 * What the subject token says the person holds: its permissions, which the provider's RBAC sets
 * (the API record adds them). Not its scope string: a client may ask for scopes at sign-in that
 * no role of the person grants.
 */
function permissionsOf(payload: Payload): Set<string> {
  return new Set(
    Array.isArray(payload.permissions)
      ? payload.permissions.filter((p): p is string => typeof p === "string")
      : [],
  );
}

function audiencesOf(payload: Payload): unknown[] {
  return Array.isArray(payload.aud) ? payload.aud : [payload.aud];
}

function subOf(token: unknown): { sub: string; payload: Payload } | undefined {
  if (typeof token !== "object" || token === null || Array.isArray(token)) return undefined;
  const payload = token as Payload;
  return typeof payload.sub === "string" && payload.sub !== ""
    ? { sub: payload.sub, payload }
    : undefined;
}
