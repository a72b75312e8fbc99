import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql, type Kysely, type Migration } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateSchema } from "./migrate-schema.js";
import { openDatabase, type Database } from "./open-database.js";
import {
  ensureTemplate,
  refillSpare,
  seedDataDir,
  templateKey,
  type SchemaMigrations,
} from "./pglite-template.js";

// PGlite's initdb runs once per template built: a few seconds each on a loaded 2-core machine.
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
const addBody: Migration = {
  up: async (db: Kysely<unknown>) => {
    await db.schema.alterTable("notes").addColumn("body", "text").execute();
  },
};

const older: SchemaMigrations[] = [{ schema: "alpha", migrations: { "0001-notes": createNotes } }];
const newer: SchemaMigrations[] = [
  { schema: "alpha", migrations: { "0001-notes": createNotes, "0002-title": addTitle } },
];

async function columns(database: Database, schema: string): Promise<string[]> {
  const { rows } = await sql<{ c: string }>`
    select table_name || '.' || column_name || ' ' || data_type as c
    from information_schema.columns where table_schema = ${schema}
    order by table_name, column_name`.execute(database.db);
  return rows.map((r) => r.c);
}

async function applied(database: Database, schema: string): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select name from ${sql.id(schema, "schema_migrations")} order by name`.execute(database.db);
  return rows.map((r) => r.name);
}

describe("PGlite templates", () => {
  let root: string;
  const open: Database[] = [];
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "svc-template-test-"));
  });
  afterAll(async () => {
    for (const d of open) await d.close();
    rmSync(root, { recursive: true, force: true });
  });
  const track = (d: Database) => (open.push(d), d);

  it("names a template after its migrations: one added or edited is another template", () => {
    expect(templateKey(newer)).not.toBe(templateKey(older));
    const edited: SchemaMigrations[] = [
      { schema: "alpha", migrations: { "0001-notes": createNotes, "0002-title": addBody } },
    ];
    expect(templateKey(edited)).not.toBe(templateKey(newer));
    expect(templateKey([...newer])).toBe(templateKey(newer));
  });

  it(
    "gives a new data folder the schema its migrations give, and never the template of older migrations",
    async () => {
      const old = await ensureTemplate(join(root, "templates"), older);
      const current = await ensureTemplate(join(root, "templates"), newer);
      expect(current.dataDir).not.toBe(old.dataDir);

      const seeded = track(
        await openDatabase({ dataDir: join(root, "seeded"), template: current }),
      );
      expect(seeded.fromTemplate).toBe(true);
      const migrated = track(await openDatabase({}));
      await migrateSchema(migrated.db, "alpha", newer[0]!.migrations);

      expect((await columns(seeded, "alpha")).filter((c) => c.startsWith("notes."))).toEqual([
        "notes.id integer",
        "notes.title text",
      ]);
      expect(await columns(seeded, "alpha")).toEqual(await columns(migrated, "alpha"));
      expect(await applied(seeded, "alpha")).toEqual(["0001-notes", "0002-title"]);
      // The service's own run at start finds nothing left to do.
      await migrateSchema(seeded.db, "alpha", newer[0]!.migrations);
      expect(await applied(seeded, "alpha")).toEqual(["0001-notes", "0002-title"]);

      // initdb's template databases are left out: half the files a new data folder copies.
      const { rows } = await sql<{ datname: string }>`
        select datname from pg_database order by datname`.execute(seeded.db);
      expect(rows.map((r) => r.datname)).toEqual(["postgres"]);

      // In memory, the same template arrives as its tarball.
      const inMemory = track(await openDatabase({ template: current }));
      expect(inMemory.fromTemplate).toBe(true);
      expect(await columns(inMemory, "alpha")).toEqual(await columns(migrated, "alpha"));
    },
    SLOW,
  );

  it(
    "seeds a data folder with Node's own copy where the system has no cp",
    async () => {
      const current = await ensureTemplate(join(root, "templates"), newer);
      const dir = join(root, "no-cp", "pgdata");
      const path = process.env.PATH;
      process.env.PATH = join(root, "nowhere");
      try {
        expect(await seedDataDir(dir, current)).toBe(true);
      } finally {
        process.env.PATH = path;
      }
      expect(readdirSync(dir, { recursive: true }).sort()).toEqual(
        readdirSync(current.dataDir, { recursive: true }).sort(),
      );
      expect(readdirSync(join(root, "no-cp"))).toEqual(["pgdata"]);
    },
    SLOW,
  );

  it(
    "removes the half-made copy a killed start left beside the data folder, and not a live start's, and copies to a path that looks like an option",
    async () => {
      const current = await ensureTemplate(join(root, "templates"), newer);
      const parent = join(root, "crashed");
      // A pid no process has (above the kernel's pid_max), and this process's own.
      const dead = join(parent, "-pgdata.seeding-99999999-0badc0de");
      const live = join(parent, `-pgdata.seeding-${process.pid}-0ddba11s`);
      for (const d of [dead, live]) {
        mkdirSync(join(d, "base"), { recursive: true });
        writeFileSync(join(d, "base", "half"), "x");
      }
      const cwd = process.cwd();
      // A relative data folder whose name begins with "-": cp must not read it as an option.
      process.chdir(parent);
      try {
        expect(await seedDataDir("-pgdata", current)).toBe(true);
      } finally {
        process.chdir(cwd);
      }
      expect(readdirSync(parent).sort()).toEqual([
        "-pgdata",
        `-pgdata.seeding-${process.pid}-0ddba11s`,
      ]);
      expect(readdirSync(join(parent, "-pgdata"), { recursive: true }).sort()).toEqual(
        readdirSync(current.dataDir, { recursive: true }).sort(),
      );
    },
    SLOW,
  );

  it(
    "leaves a data folder that already holds files alone",
    async () => {
      const current = await ensureTemplate(join(root, "templates"), newer);
      const dir = join(root, "occupied");
      mkdirSync(dir);
      writeFileSync(join(dir, "notes.txt"), "mine");
      expect(await seedDataDir(dir, current)).toBe(false);
      expect(readdirSync(dir)).toEqual(["notes.txt"]);
      // Nothing half-copied is left beside it.
      expect(readdirSync(root).filter((f) => f.includes("seeding"))).toEqual([]);
    },
    SLOW,
  );

  const listing = (dir: string) => readdirSync(dir, { recursive: true }).sort();

  it(
    "gives a new data folder the spare made after the last start, by a rename, and the next one a copy",
    async () => {
      const current = await ensureTemplate(join(root, "templates"), newer);
      rmSync(current.spare, { recursive: true, force: true });
      await refillSpare(current).done;
      expect(listing(current.spare)).toEqual(listing(current.dataDir));

      const first = join(root, "spare-taken", "pgdata");
      mkdirSync(first, { recursive: true });
      expect(await seedDataDir(first, current)).toBe(true);
      expect(existsSync(current.spare)).toBe(false);
      const second = join(root, "spare-gone", "pgdata");
      expect(await seedDataDir(second, current)).toBe(true);
      for (const dir of [first, second]) expect(listing(dir)).toEqual(listing(current.dataDir));

      const opened = track(await openDatabase({ dataDir: first }));
      expect(await applied(opened, "alpha")).toEqual(["0001-notes", "0002-title"]);
      // A refill when a spare is already there keeps it.
      await refillSpare(current).done;
      await refillSpare(current).done;
      expect(listing(current.spare)).toEqual(listing(current.dataDir));
      expect(readdirSync(join(current.spare, "..")).filter((f) => f.includes("seeding"))).toEqual(
        [],
      );
    },
    SLOW,
  );

  it(
    "gives each of two new data folders opened at once a whole database when there is one spare",
    async () => {
      const current = await ensureTemplate(join(root, "templates"), newer);
      await refillSpare(current).done;
      const dirs = [join(root, "race", "a"), join(root, "race", "b")];
      expect(await Promise.all(dirs.map((d) => seedDataDir(d, current)))).toEqual([true, true]);
      for (const dir of dirs) expect(listing(dir)).toEqual(listing(current.dataDir));
      expect(readdirSync(join(root, "race")).sort()).toEqual(["a", "b"]);
    },
    SLOW,
  );

  it(
    "makes no spare where the system has no cp (Node's copy could not be stopped at shutdown)",
    async () => {
      const current = await ensureTemplate(join(root, "templates"), newer);
      rmSync(current.spare, { recursive: true, force: true });
      const path = process.env.PATH;
      process.env.PATH = join(root, "nowhere");
      try {
        await refillSpare(current).done;
      } finally {
        process.env.PATH = path;
      }
      expect(readdirSync(join(current.spare, "..")).sort()).toEqual(["pgdata", "pgdata.tar"]);
    },
    SLOW,
  );

  it(
    "stops a refill a closing process cancels, leaving neither a spare nor a half-made copy",
    async () => {
      const current = await ensureTemplate(join(root, "templates"), newer);
      rmSync(current.spare, { recursive: true, force: true });
      const refill = refillSpare(current);
      refill.cancel();
      await refill.done;
      expect(existsSync(current.spare)).toBe(false);
      expect(readdirSync(join(current.spare, "..")).sort()).toEqual(["pgdata", "pgdata.tar"]);
    },
    SLOW,
  );

  it(
    "starts an empty data folder it cannot replace (a mount point, a parent it may not write) without the template, by initdb in place",
    async (ctx) => {
      const current = await ensureTemplate(join(root, "templates"), newer);
      const parent = join(root, "locked");
      const dir = join(parent, "pgdata");
      mkdirSync(dir, { recursive: true });
      // An immutable parent refuses the folder's removal even to root, as a mount point does.
      try {
        execFileSync("chattr", ["+i", parent], { stdio: "ignore" });
      } catch {
        ctx.skip("chattr +i needs root on a file system with attributes");
      }
      try {
        expect(await seedDataDir(dir, current)).toBe(false);
        const database = track(await openDatabase({ dataDir: dir, template: current }));
        expect(database.fromTemplate).toBe(false);
        await migrateSchema(database.db, "alpha", newer[0]!.migrations);
        expect(await applied(database, "alpha")).toEqual(["0001-notes", "0002-title"]);
        expect(readdirSync(parent)).toEqual(["pgdata"]);
      } finally {
        execFileSync("chattr", ["-i", parent], { stdio: "ignore" });
      }
    },
    SLOW,
  );
});
