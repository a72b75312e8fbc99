import type { Kysely, Transaction } from "kysely";
import type { MembershipChangeRow } from "../domain/tenancy-strategy.js";
import type { IdentityDatabase } from "./identity.table.js";
import { grantsForGroups } from "./tenancy.repository.js";

type Db = Kysely<IdentityDatabase> | Transaction<IdentityDatabase>;

/** The org's row, locked for the transaction: two migrations of one org run one after the other. */
export function orgForUpdate(trx: Transaction<IdentityDatabase>, orgId: string) {
  return trx
    .selectFrom("orgs")
    .select(["id", "tenancy_strategy"])
    .where("id", "=", orgId)
    .forUpdate()
    .executeTakeFirst();
}

export async function setStrategy(
  trx: Transaction<IdentityDatabase>,
  orgId: string,
  strategy: string,
): Promise<void> {
  await trx
    .updateTable("orgs")
    .set({ tenancy_strategy: strategy })
    .where("id", "=", orgId)
    .execute();
}

/** The org's memberships from one source, with each person's subject. */
export async function grantsFromSource(
  db: Db,
  orgId: string,
  source: "invite" | "idp_group",
): Promise<MembershipChangeRow[]> {
  const rows = await db
    .selectFrom("memberships")
    .innerJoin("users", "users.id", "memberships.user_id")
    .select([
      "memberships.user_id",
      "users.subject",
      "memberships.scope_kind",
      "memberships.scope_id",
      "memberships.role",
      "memberships.connection_kind",
      "memberships.source_group",
    ])
    .where("memberships.org_id", "=", orgId)
    .where("memberships.source", "=", source)
    .orderBy("users.subject")
    .orderBy("memberships.scope_kind")
    .orderBy("memberships.scope_id")
    .orderBy("memberships.role")
    .execute();
  return rows.map((r) => ({ ...r, source }));
}

/** What the groups the org's people last reported map to, on the org's active connections. */
export async function grantsOfReportedGroups(
  db: Db,
  orgId: string,
): Promise<MembershipChangeRow[]> {
  const reported = await db
    .selectFrom("external_groups")
    .innerJoin("users", "users.id", "external_groups.user_id")
    .select([
      "external_groups.user_id",
      "users.subject",
      "external_groups.connection_kind",
      "external_groups.groups",
    ])
    .where("external_groups.org_id", "=", orgId)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom("idp_connections")
          .select("idp_connections.id")
          .whereRef("idp_connections.org_id", "=", "external_groups.org_id")
          .whereRef("idp_connections.connection_kind", "=", "external_groups.connection_kind")
          .where("idp_connections.status", "=", "active"),
      ),
    )
    .orderBy("users.subject")
    .execute();
  const out: MembershipChangeRow[] = [];
  for (const r of reported)
    for (const g of await grantsForGroups(db, orgId, r.connection_kind, r.groups))
      out.push({
        user_id: r.user_id,
        subject: r.subject,
        connection_kind: r.connection_kind,
        source: "idp_group",
        ...g,
      });
  return out;
}

/** Removes and adds a migration's memberships. */
export async function applyMembershipChanges(
  trx: Transaction<IdentityDatabase>,
  orgId: string,
  changes: { added: MembershipChangeRow[]; removed: MembershipChangeRow[] },
): Promise<void> {
  for (const m of changes.removed)
    await trx
      .deleteFrom("memberships")
      .where("user_id", "=", m.user_id)
      .where("org_id", "=", orgId)
      .where("source", "=", m.source)
      .where("scope_kind", "=", m.scope_kind)
      .where("scope_id", "=", m.scope_id)
      .where("role", "=", m.role)
      .where("connection_kind", "=", m.connection_kind)
      .where("source_group", "=", m.source_group)
      .execute();
  if (changes.added.length > 0)
    await trx
      .insertInto("memberships")
      .values(
        changes.added.map((m) => ({
          user_id: m.user_id,
          org_id: orgId,
          scope_kind: m.scope_kind,
          scope_id: m.scope_id,
          role: m.role,
          source: m.source,
          connection_kind: m.connection_kind,
          source_group: m.source_group,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
}

/** Keeps the groups a person reported through a connection kind of the org. */
export async function recordReportedGroups(
  trx: Transaction<IdentityDatabase>,
  r: { userId: string; orgId: string; connectionKind: string; groups: string[] },
): Promise<void> {
  const groups = JSON.stringify(r.groups);
  await trx
    .insertInto("external_groups")
    .values({ user_id: r.userId, org_id: r.orgId, connection_kind: r.connectionKind, groups })
    .onConflict((oc) =>
      oc
        .columns(["user_id", "org_id", "connection_kind"])
        .doUpdateSet({ groups, synced_at: new Date() }),
    )
    .execute();
}
