import type { Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A TypeScript bundle's source map (v3 JSON), kept beside it: a strategy's stack lines point at
  // the bundle, and are mapped back to the uploaded files when a run fails. Null for a bundle
  // stored before maps were kept (its next upload adds it) and for Python (its source is its
  // bundle).
  await db.schema.alterTable("strategy_bundles").addColumn("source_map", "text").execute();
}
