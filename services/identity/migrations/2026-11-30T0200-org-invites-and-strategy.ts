import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
/**
 * Organization invites and an org's tenancy strategy. An invite keeps only the SHA-256 of its
 * token (unique, so a token names one invite); acceptance, revocation and expiry are columns of
 * the row, so "used" is a state one conditional update moves it into, once. The groups a person
 * last reported are kept per org and connection kind, so a move to a group-mapped strategy can
 * say what those groups would grant before anyone signs in again.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("orgs")
    .addColumn("tenancy_strategy", "text", (c) => c.notNull().defaultTo("hybrid"))
    .execute();
  await db.schema
    .createTable("org_invites")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("org_id", "uuid", (c) => c.notNull().references("orgs.id").onDelete("cascade"))
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("email", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("issued_by", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("accepted_by", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("accepted_at", "timestamptz")
    .addColumn("revoked_by", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("revoked_at", "timestamptz")
    .execute();
  await db.schema
    .createIndex("org_invites_by_org")
    .on("org_invites")
    .columns(["org_id", "created_at"])
    .execute();
  await db.schema
    .createTable("external_groups")
    .addColumn("user_id", "uuid", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("org_id", "uuid", (c) => c.notNull().references("orgs.id").onDelete("cascade"))
    .addColumn("connection_kind", "text", (c) => c.notNull())
    .addColumn("groups", "jsonb", (c) => c.notNull())
    .addColumn("synced_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("external_groups_pk", ["user_id", "org_id", "connection_kind"])
    .execute();
}
