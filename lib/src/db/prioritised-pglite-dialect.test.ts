import { Kysely, sql } from "kysely";
import { describe, expect, it } from "vitest";
import { PrioritisedPgliteDialect, type PgliteLike } from "./prioritised-pglite-dialect.js";
import { inBackground } from "./query-priority.js";

/** A database whose statements end when the test says, recording the order they started in. */
function heldDatabase(backgroundMaxWaitMs?: number) {
  const started: string[] = [];
  const release: Array<() => void> = [];
  const client: PgliteLike = {
    query: async <R>(text: string) => {
      started.push(text);
      await new Promise<void>((r) => release.push(r));
      return { rows: [] as R[] };
    },
    close: async () => {},
  };
  const db = new Kysely<unknown>({
    dialect: new PrioritisedPgliteDialect(
      client,
      backgroundMaxWaitMs === undefined ? {} : { backgroundMaxWaitMs },
    ),
  });
  const settle = async () => {
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  };
  return { db, started, release: () => release.shift()!(), settle };
}

describe("the embedded database's one connection", () => {
  it("serves a waiting request before background work that waited longer", async () => {
    const { db, started, release, settle } = heldDatabase();
    const q = (name: string) => sql`select ${sql.lit(name)}`.execute(db);
    const first = inBackground(() => q("results 1"));
    await settle();
    const waiting = [inBackground(() => q("results 2")), inBackground(() => q("results 3"))];
    await settle();
    const read = q("get bot");
    await settle();
    release();
    await settle();
    // The request arrived last and goes next; the background statements follow in their order.
    expect(started).toEqual(["select 'results 1'", "select 'get bot'"]);
    release();
    await settle();
    release();
    await settle();
    release();
    await Promise.all([first, read, ...waiting]);
    expect(started.slice(2)).toEqual(["select 'results 2'", "select 'results 3'"]);
  });

  it("lets background work that waited past its bound go before later requests", async () => {
    const { db, started, release, settle } = heldDatabase(200);
    const q = (name: string) => sql`select ${sql.lit(name)}`.execute(db);
    const first = q("a request");
    await settle();
    const overdue = inBackground(() => q("results"));
    await settle();
    await new Promise((r) => setTimeout(r, 300));
    const later = q("a later request");
    await settle();
    release();
    await settle();
    expect(started[1]).toBe("select 'results'");
    release();
    await settle();
    release();
    await Promise.all([first, overdue, later]);
  });
});
