import { Code, svcError, type ConnectError } from "../errors/index.js";
import type { Principal } from "./principal.js";

/**
 * What this process has learned each person holds: the scopes of the newest of their own access
 * tokens it verified. The provider's RBAC is the source of a person's permissions and the platform
 * cannot ask it; every token of theirs says what they held when it was issued.
 */
export interface DelegatedScopeGuard {
  /** Remembers what a person's own token grants, unless a newer token of theirs was seen. */
  observe(person: Principal): void;
  /**
   * The scopes of a delegated token that the person it acts for no longer holds: those missing
   * from a token of the person issued at or after the delegation. Empty when none, or when no
   * such token was seen (the delegation was then minted from what the person held).
   */
  revoked(agent: Principal): string[];
}

/** People remembered at most; past it the one updated longest ago is forgotten. */
const DEFAULT_CAPACITY = 10_000;

/**
 * Holds delegations to the person's current permissions: a person who lost a permission cannot
 * keep using it through an agent whose delegated token was minted before, once the platform has
 * seen a token of theirs without it. The delegated token's scopes are intersected with it at each
 * request (the auth interceptor drops the revoked ones and answers `delegated_scope_revoked` when
 * the route needs one). In memory, per process: a forgotten person falls back to the bounds of
 * the profile (a delegation lives at most SVC_AUTH_AGENT_DELEGATION_TTL_SECONDS and never past the
 * person's token, and the provider grants no new one of a permission the person lost).
 *
 * @example const guard = createDelegatedScopeGuard(); guard.observe(person); guard.revoked(agent);
 */
export function createDelegatedScopeGuard(capacity = DEFAULT_CAPACITY): DelegatedScopeGuard {
  const known = new Map<string, { scopes: ReadonlySet<string>; issuedAt: number }>();
  return {
    observe(person) {
      if (person.actorType !== "user" || person.delegated || person.issuedAt === undefined) return;
      const seen = known.get(person.sub);
      if (seen && seen.issuedAt > person.issuedAt) return;
      known.delete(person.sub);
      if (known.size >= capacity) known.delete(known.keys().next().value!);
      known.set(person.sub, { scopes: new Set(person.scopes), issuedAt: person.issuedAt });
    },
    revoked(agent) {
      if (agent.actorType !== "agent" || agent.onBehalfOfSub === undefined) return [];
      const person = known.get(agent.onBehalfOfSub);
      if (!person || person.issuedAt < (agent.issuedAt ?? 0)) return [];
      return agent.scopes.filter((s) => !person.scopes.has(s));
    },
  };
}

/**
 * The 403 for a route that needs a scope the agent's person no longer holds.
 *
 * @example throw delegatedScopeRevoked(principal, "read:mcp:data");
 */
export function delegatedScopeRevoked(agent: Principal, scope: string): ConnectError {
  return svcError(
    Code.PermissionDenied,
    "delegated_scope_revoked",
    `${agent.onBehalfOfSub} no longer holds ${scope}: the agent ${agent.agentSubject} cannot use it through a delegation minted before`,
    { scope },
  );
}
