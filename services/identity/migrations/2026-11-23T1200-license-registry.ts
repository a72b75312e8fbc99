import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per customer install: its terms, its device key, its serial counter, its revocation.
  await db.schema
    .createTable("license_deployments")
    .addColumn("deployment_id", "text", (c) => c.primaryKey())
    .addColumn("customer_id", "text")
    .addColumn("entitlements", "jsonb", (c) => c.notNull())
    .addColumn("ttl_seconds", "integer", (c) => c.notNull())
    .addColumn("grace_period_seconds", "integer", (c) => c.notNull())
    .addColumn("contract_ends_at", "timestamptz")
    .addColumn("device_public_key", "text")
    .addColumn("last_serial", "integer", (c) => c.notNull())
    .addColumn("revoked_at", "timestamptz")
    .addColumn("revoked_by", "text")
    .addColumn("revoke_reason", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // The registry of issued leases. The signed document itself is not kept: it is shown once.
  await db.schema
    .createTable("license_leases")
    .addColumn("lease_id", "text", (c) => c.primaryKey())
    .addColumn("deployment_id", "text", (c) =>
      c.notNull().references("license_deployments.deployment_id"),
    )
    .addColumn("serial", "integer", (c) => c.notNull())
    .addColumn("public_key_id", "text", (c) => c.notNull())
    .addColumn("customer_id", "text")
    .addColumn("entitlements", "jsonb", (c) => c.notNull())
    .addColumn("issued_at", "timestamptz", (c) => c.notNull())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("grace_period_seconds", "integer", (c) => c.notNull())
    .addColumn("issued_by", "text", (c) => c.notNull())
    .addColumn("renewal_of", "text")
    .addColumn("revoked_at", "timestamptz")
    .addColumn("revoked_by", "text")
    .addColumn("revoke_reason", "text")
    .addUniqueConstraint("license_leases_serial_uq", ["deployment_id", "serial"])
    .execute();
  await db.schema
    .createIndex("license_leases_key_idx")
    .on("license_leases")
    .columns(["public_key_id", "expires_at"])
    .execute();

  // Each renewal nonce is accepted once per deployment.
  await db.schema
    .createTable("license_renewal_nonces")
    .addColumn("deployment_id", "text", (c) => c.notNull())
    .addColumn("nonce", "text", (c) => c.notNull())
    .addColumn("seen_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("license_renewal_nonces_pk", ["deployment_id", "nonce"])
    .execute();

  // Audit-first admin actions of the identity service (the identity issue grows this).
  await db.schema
    .createTable("audit_events")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("event_type", "text", (c) => c.notNull())
    .addColumn("actor_sub", "text", (c) => c.notNull())
    .addColumn("actor_type", "text", (c) => c.notNull())
    .addColumn("target", "text", (c) => c.notNull())
    .addColumn("details", "jsonb", (c) => c.notNull())
    .execute();
}
