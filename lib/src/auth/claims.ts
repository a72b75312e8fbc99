import { errors, type JWTPayload } from "jose";
import type { Principal } from "./principal.js";

/**
 * Reads a verified token's claims into a Principal.
 *
 * - Custom claims live under `namespace` (org_id, team_id, ..., roles, connection,
 *   internal_user_id; the earlier hook wrote the internal id as user_id, still read).
 *   org_id is also read at the top level, where the token exchange copies it.
 * - Scopes are the union of the `permissions` array (the API record adds it) and the
 *   space-separated `scope` string.
 * - An `act` claim (RFC 8693) makes the caller an agent acting for `sub`. It must be an object
 *   with a string `sub` and, when `issuer` is given, `iss` equal to it: a malformed `act` is
 *   refused rather than read as a plain user token, which would drop the agent restrictions.
 * - A machine token is one from the client_credentials grant: `gty` "client-credentials" (Auth0)
 *   or, for providers without gty, a `sub` ending in "@clients" (Auth0's client subject form).
 *
 * Throws jose's JWTClaimValidationFailed for a claim of the wrong shape.
 *
 * @example principalFromClaims(payload, "https://svc.example/claims/", issuer).actorType // "user"
 */
export function principalFromClaims(
  claims: JWTPayload,
  namespace: string,
  issuer?: string,
): Principal {
  const bad = (claim: string, why: string) =>
    new errors.JWTClaimValidationFailed(`"${claim}" claim ${why}`, claims, claim, "check_failed");
  const sub = claims.sub;
  if (typeof sub !== "string" || sub === "") throw bad("sub", "must be a non-empty string");
  const ns = (name: string) => claims[`${namespace}${name}`];
  const scopes = new Set<string>([
    ...strings(claims.permissions),
    ...(typeof claims.scope === "string" ? claims.scope.split(" ").filter(Boolean) : []),
  ]);

  let agentSubject: string | undefined;
  if (claims.act !== undefined) {
    const act = claims.act as { sub?: unknown; iss?: unknown } | null;
    if (typeof act !== "object" || act === null || Array.isArray(act))
      throw bad("act", "must be an object");
    agentSubject = str(act.sub);
    if (!agentSubject) throw bad("act", "must name the agent in act.sub");
    // Only the delegation profile mints act claims, always for an agent: anything else in act.sub
    // is a token that claims a delegation nobody granted.
    if (!agentSubject.startsWith("agent|"))
      throw bad(
        "act",
        `act.sub must name an agent (agent|...), not ${JSON.stringify(agentSubject)}`,
      );
    if (issuer !== undefined && act.iss !== issuer)
      throw bad("act", "must carry the issuer in act.iss");
  }
  const machine =
    !agentSubject && (claims.gty === "client-credentials" || sub.endsWith("@clients"));

  return {
    sub,
    actorType: agentSubject ? "agent" : machine ? "machine" : "user",
    onBehalfOfSub: agentSubject ? sub : undefined,
    agentSubject,
    delegated: claims.svc_delegated === true,
    orgId: str(ns("org_id")) ?? str(claims.org_id),
    teamId: str(ns("team_id")),
    workspaceId: str(ns("workspace_id")),
    projectId: str(ns("project_id")),
    labId: str(ns("lab_id")),
    internalUserId: str(ns("internal_user_id")) ?? str(ns("user_id")),
    connection: str(ns("connection")),
    roles: strings(ns("roles")),
    scopes: [...scopes],
    acr: str(claims.acr),
    amr: strings(claims.amr),
    authTime: typeof claims.auth_time === "number" ? claims.auth_time : undefined,
    expiresAt: claims.exp,
    issuedAt: claims.iat,
  };
}

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}
