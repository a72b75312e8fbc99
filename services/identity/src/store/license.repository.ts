import type { JsonObject } from "@bufbuild/protobuf";
import { sql, type Kysely, type Transaction } from "kysely";
import type { DeploymentRow, IdentityDatabase, LeaseRow } from "./identity.table.js";

type Db = Kysely<IdentityDatabase>;
type Trx = Transaction<IdentityDatabase>;

/** The terms an issuer sets for a deployment; renewals reuse them. */
export interface DeploymentTerms {
  deploymentId: string;
  customerId: string | null;
  entitlements: JsonObject;
  ttlSeconds: number;
  gracePeriodSeconds: number;
  contractEndsAt: Date | null;
  /** Left as registered when null. */
  devicePublicKey: string | null;
}

/**
 * Creates the deployment or sets its terms, and takes the next serial, in one statement: the
 * row lock of the upsert orders concurrent issues, so each gets its own serial.
 */
export async function upsertTermsTakingSerial(
  trx: Trx,
  t: DeploymentTerms,
): Promise<DeploymentRow> {
  return trx
    .insertInto("license_deployments")
    .values({
      deployment_id: t.deploymentId,
      customer_id: t.customerId,
      entitlements: JSON.stringify(t.entitlements),
      ttl_seconds: t.ttlSeconds,
      grace_period_seconds: t.gracePeriodSeconds,
      contract_ends_at: t.contractEndsAt,
      device_public_key: t.devicePublicKey,
      last_serial: 1,
    })
    .onConflict((oc) =>
      oc.column("deployment_id").doUpdateSet((eb) => ({
        customer_id: eb.ref("excluded.customer_id"),
        entitlements: eb.ref("excluded.entitlements"),
        ttl_seconds: eb.ref("excluded.ttl_seconds"),
        grace_period_seconds: eb.ref("excluded.grace_period_seconds"),
        contract_ends_at: eb.ref("excluded.contract_ends_at"),
        device_public_key: sql<
          string | null
        >`coalesce(excluded.device_public_key, license_deployments.device_public_key)`,
        last_serial: sql<number>`license_deployments.last_serial + 1`,
        updated_at: sql<Date>`now()`,
      })),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The deployment, locked until the transaction ends (renewal, revocation). */
export async function lockDeployment(trx: Trx, deploymentId: string) {
  return trx
    .selectFrom("license_deployments")
    .selectAll()
    .where("deployment_id", "=", deploymentId)
    .forUpdate()
    .executeTakeFirst();
}

/** The next serial of a deployment whose row the caller holds locked. */
export async function takeSerial(trx: Trx, deploymentId: string): Promise<number> {
  const row = await trx
    .updateTable("license_deployments")
    .set({ last_serial: sql<number>`last_serial + 1`, updated_at: sql<Date>`now()` })
    .where("deployment_id", "=", deploymentId)
    .returning("last_serial")
    .executeTakeFirstOrThrow();
  return row.last_serial;
}

export interface NewLease {
  leaseId: string;
  deploymentId: string;
  serial: number;
  publicKeyId: string;
  customerId: string | null;
  entitlements: JsonObject;
  issuedAt: Date;
  expiresAt: Date;
  gracePeriodSeconds: number;
  issuedBy: string;
  renewalOf: string | null;
}

export async function insertLease(trx: Trx, l: NewLease): Promise<void> {
  await trx
    .insertInto("license_leases")
    .values({
      lease_id: l.leaseId,
      deployment_id: l.deploymentId,
      serial: l.serial,
      public_key_id: l.publicKeyId,
      customer_id: l.customerId,
      entitlements: JSON.stringify(l.entitlements),
      issued_at: l.issuedAt,
      expires_at: l.expiresAt,
      grace_period_seconds: l.gracePeriodSeconds,
      issued_by: l.issuedBy,
      renewal_of: l.renewalOf,
    })
    .execute();
}

export async function findLease(db: Db | Trx, leaseId: string): Promise<LeaseRow | undefined> {
  return db
    .selectFrom("license_leases")
    .selectAll()
    .where("lease_id", "=", leaseId)
    .executeTakeFirst();
}

/**
 * The lease an earlier renewal of `leaseId` issued, while it still runs (not revoked, not expired
 * at `now`): a retried renewal answers with it rather than minting another. Leases of one
 * deployment are few and found by the (deployment_id, serial) index.
 */
export async function findLiveRenewalOf(
  trx: Trx,
  deploymentId: string,
  leaseId: string,
  now: Date,
): Promise<LeaseRow | undefined> {
  return trx
    .selectFrom("license_leases")
    .selectAll()
    .where("deployment_id", "=", deploymentId)
    .where("renewal_of", "=", leaseId)
    .where("revoked_at", "is", null)
    .where("expires_at", ">", now)
    .orderBy("serial", "desc")
    .limit(1)
    .executeTakeFirst();
}

/**
 * Spends a renewal nonce; false when it was spent before (a replay). Nonces older than
 * `keepSeconds` are dropped on the way: a request that old is refused by its timestamp anyway.
 */
export async function spendNonce(
  trx: Trx,
  deploymentId: string,
  nonce: string,
  keepSeconds: number,
): Promise<boolean> {
  await trx
    .deleteFrom("license_renewal_nonces")
    .where("deployment_id", "=", deploymentId)
    .where("seen_at", "<", sql<Date>`now() - make_interval(secs => ${keepSeconds})`)
    .execute();
  const inserted = await trx
    .insertInto("license_renewal_nonces")
    .values({ deployment_id: deploymentId, nonce })
    .onConflict((oc) => oc.doNothing())
    .returning("nonce")
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Marks the deployment and its leases revoked; returns how many leases were not revoked before. */
export async function revokeDeployment(
  trx: Trx,
  r: { deploymentId: string; by: string; reason: string },
): Promise<number> {
  const leases = await trx
    .updateTable("license_leases")
    .set({ revoked_at: sql<Date>`now()`, revoked_by: r.by, revoke_reason: r.reason })
    .where("deployment_id", "=", r.deploymentId)
    .where("revoked_at", "is", null)
    .returning("lease_id")
    .execute();
  await trx
    .updateTable("license_deployments")
    .set({
      revoked_at: sql<Date>`coalesce(revoked_at, now())`,
      revoked_by: sql<string>`coalesce(revoked_by, ${r.by})`,
      revoke_reason: sql<string>`coalesce(revoke_reason, ${r.reason})`,
      updated_at: sql<Date>`now()`,
    })
    .where("deployment_id", "=", r.deploymentId)
    .execute();
  return leases.length;
}

/**
 * For each key id, when the last lease it signed leaves its grace period (absent: it signed none).
 */
export async function graceEndByKey(db: Db, keyIds: string[]): Promise<Map<string, Date>> {
  if (keyIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("license_leases")
    .select([
      "public_key_id",
      sql<Date>`max(expires_at + make_interval(secs => grace_period_seconds))`.as("grace_ends_at"),
    ])
    .where("public_key_id", "in", keyIds)
    .groupBy("public_key_id")
    .execute();
  return new Map(rows.map((r) => [r.public_key_id, new Date(r.grace_ends_at)]));
}
