import { Migrator, sql, type Kysely, type Migration, type MigrationProvider } from "kysely";

/**
 * Creates `schema` if needed and applies the service's migrations inside it, recording them in
 * the schema's own migration table: services never share or see each other's history.
 */
export async function migrateSchema(
  db: Kysely<unknown>,
  schema: string,
  migrations: Record<string, Migration>,
): Promise<void> {
  await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  const scoped = db.withSchema(schema);
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  const migrator = new Migrator({
    db: scoped,
    provider,
    migrationTableSchema: schema,
    migrationTableName: "schema_migrations",
    migrationLockTableName: "schema_migrations_lock",
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed =
      results?.find((r) => r.status === "Error")?.migrationName ?? "(before any migration ran)";
    throw new Error(
      `migration ${failed} of schema ${schema} failed: ${(error as Error).message ?? String(error)}`,
      { cause: error },
    );
  }
}
