import { sql, type Kysely, type Migration } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateSchema } from "./migrate-schema.js";
import { openDatabase, type Database } from "./open-database.js";

// PGlite's initdb runs once for the file: a few seconds on a loaded 2-core machine.
const SLOW = 120_000;

const createNotes: Migration = {
  up: async (db: Kysely<unknown>) => {
    await db.schema
      .createTable("notes")
      .addColumn("id", "integer", (c) => c.primaryKey())
      .execute();
  },
};
const addTitle: Migration = {
  up: async (db: Kysely<unknown>) => {
    await db.schema.alterTable("notes").addColumn("title", "text").execute();
  },
};

describe("migrateSchema on a schema migrated before", () => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({});
  }, SLOW);
  afterAll(async () => {
    await database?.close();
  });

  const applied = async (schema: string) => {
    const { rows } = await sql<{ name: string }>`
      select name from ${sql.id(schema, "schema_migrations")} order by name`.execute(database.db);
    return rows.map((r) => r.name);
  };
  const columns = async (schema: string) => {
    const { rows } = await sql<{ c: string }>`
      select column_name as c from information_schema.columns
      where table_schema = ${schema} and table_name = 'notes' order by column_name`.execute(
      database.db,
    );
    return rows.map((r) => r.c);
  };

  it(
    "runs nothing again, and still applies a migration added since",
    async () => {
      await migrateSchema(database.db, "again", { "0001-notes": createNotes });
      await sql`insert into again.notes (id) values (1)`.execute(database.db);
      await migrateSchema(database.db, "again", { "0001-notes": createNotes });
      expect(await applied("again")).toEqual(["0001-notes"]);
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from again.notes`.execute(database.db);
      expect(rows[0]!.n).toBe(1);

      await migrateSchema(database.db, "again", {
        "0001-notes": createNotes,
        "0002-title": addTitle,
      });
      expect(await applied("again")).toEqual(["0001-notes", "0002-title"]);
      expect(await columns("again")).toEqual(["id", "title"]);
    },
    SLOW,
  );

  it(
    "refuses a history naming a migration this code does not have, as many as it has",
    async () => {
      await migrateSchema(database.db, "renamed", { "0001-notes": createNotes });
      // The same number of migrations, another name: nothing is skipped as if up to date.
      await expect(
        migrateSchema(database.db, "renamed", { "0001-other": addTitle }),
      ).rejects.toThrow(/corrupted migrations/);
      expect(await columns("renamed")).toEqual(["id"]);
    },
    SLOW,
  );
});
