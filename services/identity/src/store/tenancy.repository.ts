import { randomUUID } from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import type { Grant } from "../domain/group-sync.js";
import type { GroupMappingRow, IdentityDatabase, MembershipRow } from "./identity.table.js";

type Db = Kysely<IdentityDatabase> | Transaction<IdentityDatabase>;

/**
 * The internal user of an identity-provider subject, created on first sight, its row locked for
 * the rest of the transaction so two syncs of one person run one after the other. An email given
 * updates the stored one.
 */
export async function provisionUser(
  trx: Transaction<IdentityDatabase>,
  subject: string,
  email?: string,
): Promise<{ id: string }> {
  await trx
    .insertInto("users")
    .values({ id: randomUUID(), subject, email: email ?? "" })
    .onConflict((oc) =>
      email ? oc.column("subject").doUpdateSet({ email, updated_at: new Date() }) : oc.doNothing(),
    )
    .execute();
  return trx
    .selectFrom("users")
    .select("id")
    .where("subject", "=", subject)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

/** The org a provider names by its own id, created on first sight. */
export async function provisionOrg(
  trx: Transaction<IdentityDatabase>,
  externalId: string,
  name: string,
): Promise<{ id: string }> {
  await trx
    .insertInto("orgs")
    .values({ id: randomUUID(), external_id: externalId, name: name || externalId })
    .onConflict((oc) => oc.column("external_id").doNothing())
    .execute();
  return trx
    .selectFrom("orgs")
    .select("id")
    .where("external_id", "=", externalId)
    .executeTakeFirstOrThrow();
}

export function findOrgByExternalId(db: Db, externalId: string) {
  return db
    .selectFrom("orgs")
    .select("id")
    .where("external_id", "=", externalId)
    .executeTakeFirst();
}

export function findOrg(db: Db, id: string) {
  return db.selectFrom("orgs").select(["id", "name"]).where("id", "=", id).executeTakeFirst();
}

/** The membership that the org a login came through grants: member of that org. */
export async function ensureOrgMembership(
  trx: Transaction<IdentityDatabase>,
  userId: string,
  orgId: string,
): Promise<void> {
  await trx
    .insertInto("memberships")
    .values({
      user_id: userId,
      org_id: orgId,
      scope_kind: "org",
      scope_id: orgId,
      role: "member",
      source: "idp_org",
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

export function membershipsOfSubject(db: Db, subject: string): Promise<MembershipRow[]> {
  return db
    .selectFrom("memberships")
    .innerJoin("users", "users.id", "memberships.user_id")
    .selectAll("memberships")
    .where("users.subject", "=", subject)
    .orderBy("memberships.scope_kind")
    .orderBy("memberships.scope_id")
    .orderBy("memberships.role")
    .execute();
}

export function membershipsOfUser(db: Db, userId: string): Promise<MembershipRow[]> {
  return db.selectFrom("memberships").selectAll().where("user_id", "=", userId).execute();
}

export async function hasActiveConnection(
  db: Db,
  orgId: string,
  connectionKind: string,
): Promise<boolean> {
  return (
    (await db
      .selectFrom("idp_connections")
      .select("id")
      .where("org_id", "=", orgId)
      .where("connection_kind", "=", connectionKind)
      .where("status", "=", "active")
      .executeTakeFirst()) !== undefined
  );
}

/** The grants an org's mappings give for these groups on this kind of connection. */
export async function grantsForGroups(
  db: Db,
  orgId: string,
  connectionKind: string,
  groups: string[],
): Promise<Grant[]> {
  if (groups.length === 0) return [];
  const rows = await db
    .selectFrom("idp_group_mappings")
    .select(["scope_kind", "scope_id", "role", "external_group"])
    .where("org_id", "=", orgId)
    .where("connection_kind", "=", connectionKind)
    .where("external_group", "in", groups)
    .execute();
  return rows.map((r) => ({
    scope_kind: r.scope_kind,
    scope_id: r.scope_id,
    role: r.role,
    source_group: r.external_group,
  }));
}

/** The grants a user holds from groups of this org and kind of connection. */
export async function groupGrantsOf(
  db: Db,
  userId: string,
  orgId: string,
  connectionKind: string,
): Promise<Grant[]> {
  return db
    .selectFrom("memberships")
    .select(["scope_kind", "scope_id", "role", "source_group"])
    .where("user_id", "=", userId)
    .where("org_id", "=", orgId)
    .where("source", "=", "idp_group")
    .where("connection_kind", "=", connectionKind)
    .execute();
}

export async function applyGrantChanges(
  trx: Transaction<IdentityDatabase>,
  at: { userId: string; orgId: string; connectionKind: string },
  changes: { add: Grant[]; remove: Grant[] },
): Promise<void> {
  for (const g of changes.remove)
    await trx
      .deleteFrom("memberships")
      .where("user_id", "=", at.userId)
      .where("org_id", "=", at.orgId)
      .where("source", "=", "idp_group")
      .where("connection_kind", "=", at.connectionKind)
      .where("scope_kind", "=", g.scope_kind)
      .where("scope_id", "=", g.scope_id)
      .where("role", "=", g.role)
      .where("source_group", "=", g.source_group)
      .execute();
  if (changes.add.length > 0)
    await trx
      .insertInto("memberships")
      .values(
        changes.add.map((g) => ({
          user_id: at.userId,
          org_id: at.orgId,
          source: "idp_group",
          connection_kind: at.connectionKind,
          ...g,
        })),
      )
      .onConflict((oc) => oc.doNothing())
      .execute();
}

export function listMappings(db: Db, orgId: string): Promise<GroupMappingRow[]> {
  return db
    .selectFrom("idp_group_mappings")
    .selectAll()
    .where("org_id", "=", orgId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
}

export async function insertMapping(
  trx: Transaction<IdentityDatabase>,
  m: Omit<GroupMappingRow, "id" | "created_at">,
): Promise<GroupMappingRow> {
  return trx
    .insertInto("idp_group_mappings")
    .values({ id: randomUUID(), ...m })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteMapping(
  trx: Transaction<IdentityDatabase>,
  orgId: string,
  id: string,
): Promise<GroupMappingRow | undefined> {
  return trx
    .deleteFrom("idp_group_mappings")
    .where("org_id", "=", orgId)
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

/** How many membership rows a subject's user holds (none for a subject never provisioned). */
export async function membershipCountOf(db: Db, subject: string): Promise<number> {
  const row = await db
    .selectFrom("memberships")
    .innerJoin("users", "users.id", "memberships.user_id")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("users.subject", "=", subject)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The internal user id of a provider subject, when that person was provisioned. */
export async function internalUserIdOf(db: Db, subject: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("users")
    .select("id")
    .where("subject", "=", subject)
    .executeTakeFirst();
  return row?.id;
}
