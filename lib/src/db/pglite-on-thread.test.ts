import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "./open-database.js";
import { isUniqueViolation } from "./pg-errors.js";

describe("embedded PGlite on its own thread", () => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({});
    await sql`create table t (id int primary key, at timestamptz, data bytea, doc jsonb)`.execute(
      database.db,
    );
  }, 120_000);
  afterAll(() => database?.close());

  it("gives back what it was given: dates, bytes and JSON", async () => {
    const at = new Date("2026-11-28T01:02:03.456Z");
    const bytes = new Uint8Array([0, 1, 254, 255]);
    await sql`insert into t values (1, ${at}, ${bytes}, ${JSON.stringify({ a: [1, "\u00e9"] })})`.execute(
      database.db,
    );
    const { rows } = await sql<{
      at: Date;
      data: Uint8Array;
      doc: unknown;
    }>`select at, data, doc from t where id = 1`.execute(database.db);
    expect(rows[0]!.at).toEqual(at);
    expect([...rows[0]!.data]).toEqual([...bytes]);
    expect(rows[0]!.doc).toEqual({ a: [1, "\u00e9"] });
  });

  it("keeps a PostgreSQL error's code, so a duplicate is still told apart", async () => {
    await sql`insert into t (id) values (2)`.execute(database.db);
    const err = await sql`insert into t (id) values (2)`.execute(database.db).catch((e) => e);
    expect(isUniqueViolation(err)).toBe(true);
    expect((err as { constraint?: string }).constraint).toBe("t_pkey");
  });

  it("leaves the event loop free while a long statement runs", async () => {
    let last = performance.now();
    let longestGap = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 5);
    const t0 = performance.now();
    await sql`select count(*) from generate_series(1, 3000000)`.execute(database.db);
    const took = performance.now() - t0;
    clearInterval(timer);
    // On the event loop the statement would have let no timer fire until it ended: one gap as
    // long as the statement.
    expect(took).toBeGreaterThan(100);
    expect(longestGap).toBeLessThan(took / 2);
  });
});
