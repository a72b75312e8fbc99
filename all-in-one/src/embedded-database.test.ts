import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "@svc/lib/config";
import { migrateSchema, openDatabase, type Database } from "@svc/lib/db";
import { openEmbeddedDatabase } from "./embedded-database.js";
import { SCHEMA_MIGRATIONS } from "./schema-migrations.js";
import { startPlatform } from "./start-platform.js";

// Two PGlite initdbs (the template's and the reference's) and a platform start: a minute under load.
const SLOW = 240_000;

/** Every table, column, index and constraint outside PostgreSQL's own schemas, as text. */
async function describeSchemas(database: Database): Promise<string[]> {
  const { rows: columns } = await sql<{ d: string }>`
    select concat_ws(' ', table_schema || '.' || table_name || '.' || column_name, data_type,
      is_nullable, column_default) as d
    from information_schema.columns
    where table_schema not in ('pg_catalog', 'information_schema', 'public')
    order by 1`.execute(database.db);
  const { rows: indexes } = await sql<{ d: string }>`
    select indexdef as d from pg_indexes
    where schemaname not in ('pg_catalog', 'information_schema', 'public') order by 1`.execute(
    database.db,
  );
  const { rows: constraints } = await sql<{ d: string }>`
    select n.nspname || '.' || c.conname || ' ' || pg_get_constraintdef(c.oid) as d
    from pg_constraint c join pg_namespace n on n.oid = c.connamespace
    where n.nspname not in ('pg_catalog', 'information_schema', 'public') order by 1`.execute(
    database.db,
  );
  const { rows: applied } = await sql<{ d: string }>`
    select string_agg(table_schema, ',' order by table_schema) as d
    from information_schema.tables where table_name = 'schema_migrations'`.execute(database.db);
  return [...columns, ...indexes, ...constraints, ...applied].map((r) => r.d);
}

describe("the embedded database of npm start", () => {
  const root = mkdtempSync(join(tmpdir(), "svc-embedded-db-test-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it(
    "starts a new data folder from the template with the schema the services' migrations give, and the platform's start adds nothing to it",
    async () => {
      const config = loadConfig({
        SVC_PORT: "0",
        SVC_LOG_LEVEL: "silent",
        SVC_DATA_DIR: join(root, "data"),
        SVC_PGLITE_TEMPLATE_DIR: join(root, "templates"),
      });
      const seeded = (await openEmbeddedDatabase(config))!;
      const reference = await openDatabase({});
      try {
        expect(seeded.fromTemplate).toBe(true);
        for (const { schema, migrations } of SCHEMA_MIGRATIONS)
          await migrateSchema(reference.db, schema, migrations);
        const fromTemplate = await describeSchemas(seeded);
        expect(fromTemplate).toEqual(await describeSchemas(reference));
        expect(fromTemplate.length).toBeGreaterThan(100);

        // Every schema a service migrates at start is in the template already.
        const running = await startPlatform(config, { db: seeded });
        await running.close();
        expect(await describeSchemas(seeded)).toEqual(fromTemplate);

        // After the start, the next new data folder's copy is made ahead of it, and taken whole.
        await seeded.refillSpare!().done;
        const next = (await openEmbeddedDatabase({ ...config, dataDir: join(root, "next") }))!;
        try {
          expect(next.openedIn?.copied).toBeDefined();
          expect(await describeSchemas(next)).toEqual(fromTemplate);
        } finally {
          await next.close();
        }
        const templates = join(root, "templates");
        for (const key of readdirSync(templates))
          expect(readdirSync(join(templates, key)).sort()).toEqual(["pgdata", "pgdata.tar"]);
      } finally {
        await seeded.close();
        await reference.close();
      }
    },
    SLOW,
  );

  it(
    "opens a folder that already holds a database as it is, without a template",
    async () => {
      const config = loadConfig({
        SVC_PORT: "0",
        SVC_LOG_LEVEL: "silent",
        SVC_DATA_DIR: join(root, "data"),
        SVC_PGLITE_TEMPLATE_DIR: "off",
      });
      const again = (await openEmbeddedDatabase(config))!;
      try {
        expect(again.fromTemplate).toBe(false);
        expect(await describeSchemas(again)).toContain(
          "identity,bots,killswitch,promotion,compliance".split(",").sort().join(","),
        );
      } finally {
        await again.close();
      }
    },
    SLOW,
  );
});
