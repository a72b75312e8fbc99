/** A role on a scope, as a membership grants it. */
export interface Grant {
  scope_kind: string;
  scope_id: string;
  role: string;
  /** The external group that grants it. */
  source_group: string;
}

/**
 * The groups a login hook sent, as the sync takes them: trimmed, empty ones dropped, duplicates
 * removed (the hook does the same; the server does not rely on it).
 *
 * @example normalizeGroups([" Traders ", "", "Traders", "risk"]) // ["Traders", "risk"]
 */
export function normalizeGroups(groups: readonly string[]): string[] {
  return [...new Set(groups.map((g) => g.trim()).filter((g) => g !== ""))];
}

const keyOf = (g: Grant) => JSON.stringify([g.scope_kind, g.scope_id, g.role, g.source_group]);

/**
 * What a group sync changes: the grants the user's groups call for that it lacks, and the grants
 * it holds from groups it is no longer in (or whose mapping is gone).
 */
export function grantChanges(
  held: readonly Grant[],
  wanted: readonly Grant[],
): { add: Grant[]; remove: Grant[] } {
  const heldKeys = new Set(held.map(keyOf));
  const wantedKeys = new Set(wanted.map(keyOf));
  return {
    add: dedupe(wanted).filter((g) => !heldKeys.has(keyOf(g))),
    remove: held.filter((g) => !wantedKeys.has(keyOf(g))),
  };
}

function dedupe(grants: readonly Grant[]): Grant[] {
  const seen = new Map(grants.map((g) => [keyOf(g), g]));
  return [...seen.values()];
}

/** The claim values a login gets from its memberships: the first scope id of each kind, every role. */
export function claimsFromMemberships(
  memberships: ReadonlyArray<{ scope_kind: string; scope_id: string; role: string }>,
): { team_id: string; workspace_id: string; project_id: string; lab_id: string; roles: string[] } {
  const first = (kind: string) =>
    memberships
      .filter((m) => m.scope_kind === kind)
      .map((m) => m.scope_id)
      .sort()[0] ?? "";
  return {
    team_id: first("team"),
    workspace_id: first("workspace"),
    project_id: first("project"),
    lab_id: first("lab"),
    roles: [...new Set(memberships.map((m) => m.role))].sort(),
  };
}
