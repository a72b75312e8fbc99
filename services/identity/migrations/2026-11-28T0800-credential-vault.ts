import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
/**
 * The credentials vault. A row holds a secret only as an envelope: the AES-256-GCM ciphertext and
 * its data key wrapped by a key-encryption key that lives in the environment, never here (kek_id
 * names which one). A name is unique, so of two creates of one name the second is refused.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("credentials")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull().unique())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("fleet", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("bot", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("kek_id", "text", (c) => c.notNull())
    .addColumn("wrapped_key", "bytea", (c) => c.notNull())
    .addColumn("ciphertext", "bytea", (c) => c.notNull())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("rotated_by", "text", (c) => c.notNull())
    .addColumn("rotated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}
