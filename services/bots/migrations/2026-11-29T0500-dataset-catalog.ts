import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The data catalog: a data set may hold several symbols (each symbol's bars are chunks of
  // their own), and shows its gaps, a digest of its bars, where it came from and its format.
  await db.schema
    .alterTable("datasets")
    .addColumn("symbols", sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn("gaps", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("digest", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("origin", "text", (c) => c.notNull().defaultTo("upload"))
    .addColumn("format", "text", (c) => c.notNull().defaultTo("csv"))
    .execute();
  // Through the query builder, so the migrator's schema applies (raw SQL would miss it).
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const q = db as Kysely<any>;
  await q
    .updateTable("datasets")
    .set({ symbols: sql`array[symbol]` })
    .execute();
  await db.schema
    .alterTable("dataset_chunks")
    .addColumn("symbol", "text", (c) => c.notNull().defaultTo(""))
    .execute();
  await q
    .updateTable("dataset_chunks")
    .set((eb) => ({
      symbol: eb
        .selectFrom("datasets")
        .select("datasets.symbol")
        .whereRef("datasets.id", "=", "dataset_chunks.dataset_id"),
    }))
    .execute();
  await db.schema.alterTable("dataset_chunks").dropConstraint("dataset_chunks_pk").execute();
  await db.schema
    .alterTable("dataset_chunks")
    .addPrimaryKeyConstraint("dataset_chunks_pk", ["dataset_id", "symbol", "seq"])
    .execute();
}
