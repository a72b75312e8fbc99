/**
 * How an org's people get their memberships. Under every strategy the org a login comes through
 * makes the person a `member` (the provider says they belong); the strategy decides what else
 * grants: invites, the org's group mappings, or both.
 */
export const TENANCY_STRATEGIES = ["hybrid", "invite_only", "group_mapped"] as const;
export type TenancyStrategyName = (typeof TENANCY_STRATEGIES)[number];

export function invitesGrant(s: TenancyStrategyName): boolean {
  return s !== "group_mapped";
}

export function groupsGrant(s: TenancyStrategyName): boolean {
  return s !== "invite_only";
}

/** A membership row as a migration adds or removes it. */
export interface MembershipChangeRow {
  user_id: string;
  subject: string;
  scope_kind: string;
  scope_id: string;
  role: string;
  source: "invite" | "idp_group";
  connection_kind: string;
  source_group: string;
}

/** What a move from one strategy to another needs from the store. */
export interface MigrationInputs {
  /** Memberships the org's invites gave. */
  inviteGrants: MembershipChangeRow[];
  /** Memberships the org's group mappings gave. */
  groupGrants: MembershipChangeRow[];
  /** What the groups people last reported would grant, on active connections. */
  groupWanted: MembershipChangeRow[];
  /** Pending (unused, unrevoked, unexpired) invites. */
  pendingInvites: number;
}

export interface MigrationPlan {
  added: MembershipChangeRow[];
  removed: MembershipChangeRow[];
  /** Whether pending invites are revoked (invites stop granting). */
  revokeInvites: boolean;
  invitesRevoked: number;
}

const keyOf = (m: MembershipChangeRow) =>
  JSON.stringify([m.user_id, m.scope_kind, m.scope_id, m.role, m.connection_kind, m.source_group]);

/**
 * The memberships a move changes: a source that stops granting loses its rows (and, for invites,
 * the pending ones are revoked); groups that start granting give what people's last reported
 * groups map to, less what they already hold from them.
 */
export function planMigration(
  from: TenancyStrategyName,
  to: TenancyStrategyName,
  inputs: MigrationInputs,
): MigrationPlan {
  const removed: MembershipChangeRow[] = [];
  if (invitesGrant(from) && !invitesGrant(to)) removed.push(...inputs.inviteGrants);
  if (groupsGrant(from) && !groupsGrant(to)) removed.push(...inputs.groupGrants);
  let added: MembershipChangeRow[] = [];
  if (!groupsGrant(from) && groupsGrant(to)) {
    const held = new Set(inputs.groupGrants.map(keyOf));
    const seen = new Set<string>();
    added = inputs.groupWanted.filter((m) => {
      const k = keyOf(m);
      if (held.has(k) || seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  }
  const revokeInvites = invitesGrant(from) && !invitesGrant(to);
  return {
    added,
    removed,
    revokeInvites,
    invitesRevoked: revokeInvites ? inputs.pendingInvites : 0,
  };
}
