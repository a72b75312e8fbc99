import type { JWTPayload } from "jose";
import type { Principal } from "./principal.js";

/**
 * Reads a verified token's claims into a Principal. Custom claims live under the configured
 * namespace; scopes come from the `permissions` array (the API adds it) and the `scope` string.
 * An `act` claim (RFC 8693) makes the caller an agent acting for `sub`. A client-credentials
 * token (`gty` of client-credentials, or a sub ending in @clients) is a machine.
 */
export function principalFromClaims(claims: JWTPayload, namespace: string): Principal {
  const ns = (name: string) => claims[`${namespace}${name}`];
  const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
  const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
  const scopes = new Set<string>([...strings(claims.permissions), ...(typeof claims.scope === "string" ? claims.scope.split(" ").filter(Boolean) : [])]);
  const act = claims.act as { sub?: unknown } | undefined;
  const agentSubject = act && typeof act === "object" ? str(act.sub) : undefined;
  const sub = claims.sub!;
  const machine = claims.gty === "client-credentials" || sub.endsWith("@clients");
  const amr = strings(claims.amr);
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
    // The earlier variant of the hook wrote the internal id under user_id.
    internalUserId: str(ns("internal_user_id")) ?? str(ns("user_id")),
    connection: str(ns("connection")),
    roles: strings(ns("roles")),
    scopes: [...scopes],
    acr: str(claims.acr),
    amr,
    authTime: typeof claims.auth_time === "number" ? claims.auth_time : undefined,
    expiresAt: claims.exp,
  };
}
