import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // An ONNX model, keyed by the SHA-256 of its bytes: written once, shared by every version (of
  // any bot) whose spec names it, never updated. Its inputs and outputs as the runtime read them.
  await db.schema
    .createTable("models")
    .addColumn("digest", "text", (c) => c.primaryKey())
    .addColumn("onnx", "bytea", (c) => c.notNull())
    .addColumn("size_bytes", "bigint", (c) => c.notNull())
    .addColumn("inputs", "text", (c) => c.notNull())
    .addColumn("outputs", "text", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint("models_digest_check", sql`digest ~ '^sha256:[0-9a-f]{64}$'`)
    .execute();
}
