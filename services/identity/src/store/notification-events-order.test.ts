import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateSchema, openDatabase, schemaDb, type Database } from "@svc/lib/db";
import { migrations } from "../../migrations/index.js";
import type { IdentityDatabase } from "./identity.table.js";
import { eventsAfter, recordEvent } from "./notifications.repository.js";

const SERVER = process.env.SVC_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

// The event stream resumes from the last seq a reader saw: a seq that commits after a higher one
// would be skipped for good. Two recorders at once on real Postgres: the later one waits.
describe("events for the stream and webhooks are numbered in the order they commit", () => {
  const dbName = `notiforder_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Pool({ connectionString: SERVER, max: 1 });
  let database: Database;
  let db: Kysely<IdentityDatabase>;
  beforeAll(async () => {
    await admin.query(`create database ${dbName}`);
    const url = new URL(SERVER);
    url.pathname = `/${dbName}`;
    database = await openDatabase({ url: url.toString(), timeoutMs: 5_000 });
    await migrateSchema(database.db, "identity", migrations);
    db = schemaDb<IdentityDatabase>(database.db, "identity");
  }, 60_000);
  afterAll(async () => {
    await database?.close();
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  });

  it("a reader never sees a later event while an earlier one is still uncommitted", async () => {
    const event = (id: string) => ({
      id,
      type: "killswitch.engaged",
      occurredAt: new Date(),
      data: { id },
    });
    let letFirstCommit!: () => void;
    const held = new Promise<void>((r) => (letFirstCommit = r));
    let firstRecorded!: () => void;
    const recorded = new Promise<void>((r) => (firstRecorded = r));
    const first = db.transaction().execute(async (trx) => {
      await recordEvent(trx, event("first"));
      firstRecorded();
      await held;
    });
    await recorded;
    let secondDone = false;
    const second = db
      .transaction()
      .execute((trx) => recordEvent(trx, event("second")))
      .then(() => (secondDone = true));
    await new Promise((r) => setTimeout(r, 300));
    // Before, "second" committed here with a higher seq, and a reader moved past "first".
    expect(secondDone).toBe(false);
    expect(await eventsAfter(db, "0", 10)).toEqual([]);
    letFirstCommit();
    await Promise.all([first, second]);
    const seen = await eventsAfter(db, "0", 10);
    expect(seen.map((e) => e.id)).toEqual(["first", "second"]);
  });
});
