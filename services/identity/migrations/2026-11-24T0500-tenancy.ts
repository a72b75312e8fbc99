import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A person as the identity provider names them (subject), provisioned at first login or call.
  await db.schema
    .createTable("users")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("subject", "text", (c) => c.notNull().unique())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // An organization, keyed by the provider's organization id when it has one.
  await db.schema
    .createTable("orgs")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("external_id", "text", (c) => c.unique())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // One grant of a role on a scope. A grant from a group names the group, so leaving one group
  // removes its grants and keeps the same role granted by another.
  await db.schema
    .createTable("memberships")
    .addColumn("user_id", "uuid", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("org_id", "uuid", (c) => c.notNull().references("orgs.id").onDelete("cascade"))
    .addColumn("scope_kind", "text", (c) => c.notNull())
    .addColumn("scope_id", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("connection_kind", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("source_group", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint("memberships_pk", [
      "user_id",
      "org_id",
      "scope_kind",
      "scope_id",
      "role",
      "source",
      "connection_kind",
      "source_group",
    ])
    .execute();
  await db.schema
    .createTable("idp_connections")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("org_id", "uuid", (c) => c.notNull().references("orgs.id").onDelete("cascade"))
    .addColumn("connection_kind", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable("idp_group_mappings")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("org_id", "uuid", (c) => c.notNull().references("orgs.id").onDelete("cascade"))
    .addColumn("connection_kind", "text", (c) => c.notNull())
    .addColumn("external_group", "text", (c) => c.notNull())
    .addColumn("scope_kind", "text", (c) => c.notNull())
    .addColumn("scope_id", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint("idp_group_mappings_unique", [
      "org_id",
      "connection_kind",
      "external_group",
      "scope_kind",
      "scope_id",
      "role",
    ])
    .execute();
}
