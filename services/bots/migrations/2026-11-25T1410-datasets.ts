import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Uploaded OHLCV data sets, kept in the database so that every bots and runner process reads
  // them. The bars are stored in chunks of columns (binary float64), so a run streams a data set
  // a chunk at a time instead of holding it whole.
  await db.schema
    .createTable("datasets")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull().unique())
    .addColumn("symbol", "text", (c) => c.notNull())
    .addColumn("timeframe", "text", (c) => c.notNull())
    .addColumn("first_bar_time", "timestamptz", (c) => c.notNull())
    .addColumn("last_bar_time", "timestamptz", (c) => c.notNull())
    .addColumn("bar_count", "bigint", (c) => c.notNull())
    .addColumn("size_bytes", "bigint", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable("dataset_chunks")
    .addColumn("dataset_id", "uuid", (c) =>
      c.notNull().references("datasets.id").onDelete("cascade"),
    )
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("bar_count", "integer", (c) => c.notNull())
    .addColumn("bars", "bytea", (c) => c.notNull())
    .addPrimaryKeyConstraint("dataset_chunks_pk", ["dataset_id", "seq"])
    .execute();
}
