import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("promotion_requests")
    .addColumn("request_id", "text", (c) => c.primaryKey())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("body", "jsonb", (c) => c.notNull())
    .addColumn("gates", "jsonb", (c) => c.notNull())
    .addColumn("requested_by", "text", (c) => c.notNull())
    .addColumn("submitter_sub", "text", (c) => c.notNull())
    .addColumn("requires_human_approval", "boolean", (c) => c.notNull())
    .addColumn("bot_id", "text")
    .addColumn("version", "integer")
    .addColumn("version_hash", "text")
    .addColumn("expires_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint(
      "promotion_status_check",
      sql`status in ('pending','approved','promoted','rejected','denied','revoked','expired')`,
    )
    .execute();
  await db.schema
    .createIndex("promotion_requests_status_idx")
    .on("promotion_requests")
    .columns(["status", "created_at"])
    .execute();

  await db.schema
    .createTable("promotion_decisions")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("request_id", "text", (c) => c.notNull().references("promotion_requests.request_id"))
    .addColumn("actor", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("note", "text", (c) => c.notNull())
    .addColumn("acr", "text", (c) => c.notNull())
    .addColumn("amr", "jsonb", (c) => c.notNull())
    .addColumn("auth_time", "timestamptz")
    .addColumn("at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  // What the promotion service knows of bot versions, projected from the bots service's events.
  await db.schema
    .createTable("known_bot_versions")
    .addColumn("bot_id", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("slug", "text", (c) => c.notNull())
    .addColumn("fleet", "text", (c) => c.notNull())
    .addColumn("spec_hash", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("known_bot_versions_pk", ["bot_id", "version"])
    .execute();
  await db.schema
    .createIndex("known_bot_versions_slug_idx")
    .on("known_bot_versions")
    .columns(["slug", "version"])
    .execute();
}
