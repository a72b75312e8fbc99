import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A strategy's source and its bundle, each keyed by the SHA-256 of its content: written once,
  // shared by every version (of any bot) whose code is the same, never updated.
  await db.schema
    .createTable("strategy_sources")
    .addColumn("digest", "text", (c) => c.primaryKey())
    // The canonical files as JSON text ([[path, content], ...], entry first), kept byte for byte.
    .addColumn("files", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint("strategy_sources_digest_check", sql`digest ~ '^sha256:[0-9a-f]{64}$'`)
    .execute();
  await db.schema
    .createTable("strategy_bundles")
    .addColumn("digest", "text", (c) => c.primaryKey())
    .addColumn("bundle", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint("strategy_bundles_digest_check", sql`digest ~ '^sha256:[0-9a-f]{64}$'`)
    .execute();
  // The version's code, by digest (null: a built-in family); its spec names both digests too.
  await db.schema
    .alterTable("bot_versions")
    .addColumn("strategy_digest", "text", (c) => c.references("strategy_sources.digest"))
    .addColumn("bundle_digest", "text", (c) => c.references("strategy_bundles.digest"))
    .execute();
}
