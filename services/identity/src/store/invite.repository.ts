import { randomUUID } from "node:crypto";
import type { Kysely, Transaction } from "kysely";
import type { IdentityDatabase, OrgInviteRow } from "./identity.table.js";

type Db = Kysely<IdentityDatabase> | Transaction<IdentityDatabase>;

export async function insertInvite(
  trx: Transaction<IdentityDatabase>,
  i: {
    org_id: string;
    token_hash: string;
    role: string;
    email: string;
    issued_by: string;
    expires_at: Date;
  },
): Promise<OrgInviteRow> {
  return trx
    .insertInto("org_invites")
    .values({ id: randomUUID(), ...i })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function listInvites(db: Db, orgId: string): Promise<OrgInviteRow[]> {
  return db
    .selectFrom("org_invites")
    .selectAll()
    .where("org_id", "=", orgId)
    .orderBy("created_at", "desc")
    .orderBy("id")
    .execute();
}

export function inviteById(db: Db, orgId: string, id: string) {
  return db
    .selectFrom("org_invites")
    .selectAll()
    .where("org_id", "=", orgId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export function inviteByTokenHash(db: Db, orgId: string, tokenHash: string) {
  return db
    .selectFrom("org_invites")
    .selectAll()
    .where("org_id", "=", orgId)
    .where("token_hash", "=", tokenHash)
    .executeTakeFirst();
}

/**
 * Moves a pending invite to accepted, or to revoked, in one conditional update: of two callers
 * at once, Postgres lets the second re-check the condition after the first commits, so only one
 * gets the row back.
 */
export function closePendingInvite(
  trx: Transaction<IdentityDatabase>,
  where: { orgId: string; id?: string; tokenHash?: string },
  close: { accepted_by: string; accepted_at: Date } | { revoked_by: string; revoked_at: Date },
  now: Date,
): Promise<OrgInviteRow | undefined> {
  let q = trx
    .updateTable("org_invites")
    .set(close)
    .where("org_id", "=", where.orgId)
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", now);
  if (where.id !== undefined) q = q.where("id", "=", where.id);
  if (where.tokenHash !== undefined) q = q.where("token_hash", "=", where.tokenHash);
  return q.returningAll().executeTakeFirst();
}

/** Revokes every pending invite of an org (a move to a strategy where invites do not grant). */
export async function revokePendingInvites(
  trx: Transaction<IdentityDatabase>,
  orgId: string,
  by: string,
  now: Date,
): Promise<number> {
  const rows = await trx
    .updateTable("org_invites")
    .set({ revoked_by: by, revoked_at: now })
    .where("org_id", "=", orgId)
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", now)
    .returning("id")
    .execute();
  return rows.length;
}

export async function pendingInviteCount(db: Db, orgId: string, now: Date): Promise<number> {
  const row = await db
    .selectFrom("org_invites")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("org_id", "=", orgId)
    .where("accepted_at", "is", null)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", now)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The membership an accepted invite gives (kept if the person already holds it). */
export async function grantInviteMembership(
  trx: Transaction<IdentityDatabase>,
  m: { userId: string; orgId: string; role: string },
): Promise<void> {
  await trx
    .insertInto("memberships")
    .values({
      user_id: m.userId,
      org_id: m.orgId,
      scope_kind: "org",
      scope_id: m.orgId,
      role: m.role,
      source: "invite",
    })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** The org's row, locked against a concurrent strategy migration for the transaction. */
export function orgForShare(trx: Transaction<IdentityDatabase>, orgId: string) {
  return trx
    .selectFrom("orgs")
    .select(["id", "tenancy_strategy"])
    .where("id", "=", orgId)
    .forShare()
    .executeTakeFirst();
}
