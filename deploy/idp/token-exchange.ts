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
}

export type ExchangeError =
  "invalid_request" | "unauthorized_client" | "invalid_target" | "invalid_grant";

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
 * - every requested scope is one of the four MCP scopes (400 invalid_target, scope rejected);
 * - the token is the person's (sub), for the API audience, with the scopes, act {sub, iss}, the
 *   svc_delegated marker and the person's org_id when the subject token had one; no consent.
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
  const orgId = subject.payload.org_id ?? subject.payload[`${settings.claimsNamespace}org_id`];
  const iat = Math.floor(settings.now() / 1000);
  return {
    ok: true,
    expiresIn: settings.ttlSeconds,
    claims: {
      iss: settings.issuer,
      sub: subject.sub,
      aud: settings.audience,
      iat,
      exp: iat + settings.ttlSeconds,
      scope: req.scopes.join(" "),
      permissions: [...req.scopes],
      act: { sub: actor.sub, iss: settings.issuer },
      svc_delegated: true,
      ...(typeof orgId === "string" && orgId ? { org_id: orgId } : {}),
    },
  };
}

function subOf(token: unknown): { sub: string; payload: Payload } | undefined {
  if (typeof token !== "object" || token === null || Array.isArray(token)) return undefined;
  const payload = token as Payload;
  return typeof payload.sub === "string" && payload.sub !== ""
    ? { sub: payload.sub, payload }
    : undefined;
}
