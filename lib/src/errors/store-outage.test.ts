import { createServer, type Server, type Socket } from "node:net";
import pg from "pg";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withDeadline } from "../deadline/index.js";
import { isStoreOutage } from "./store-outage.js";

// The errors node-postgres really throws when a server does not answer: a silent listener that
// accepts connections and never speaks stands in for a hung (SIGSTOPped) Postgres.
describe("isStoreOutage", () => {
  let silent: Server;
  const sockets: Socket[] = [];
  let port = 0;
  beforeAll(async () => {
    silent = createServer((s) => void sockets.push(s));
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    port = (silent.address() as { port: number }).port;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => silent.close(r));
  });

  /** A connection to the machine's real Postgres. */
  const realServer = async () => {
    const server = new pg.Client({
      connectionString:
        process.env.SVC_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
    });
    await server.connect();
    return server;
  };

  const failureOf = async (work: () => Promise<unknown>) => {
    try {
      await work();
    } catch (err) {
      return err;
    }
    throw new Error("the call did not fail");
  };

  it("knows the pool that cannot get a connection in time", async () => {
    const pool = new pg.Pool({
      connectionString: `postgres://x@127.0.0.1:${port}/x`,
      connectionTimeoutMillis: 200,
    });
    pool.on("error", () => {});
    const err = await failureOf(() => pool.query("select 1"));
    await pool.end().catch(() => undefined);
    expect(isStoreOutage(err)).toBe(true);
  });

  it("knows a refused connection and the platform's own deadline", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const freePort = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    const client = new pg.Client({ connectionString: `postgres://x@127.0.0.1:${freePort}/x` });
    expect(isStoreOutage(await failureOf(() => client.connect()))).toBe(true);
    const hung = new Promise(() => {});
    expect(isStoreOutage(await failureOf(() => withDeadline(hung, 10, "the store")))).toBe(true);
  });

  it("knows the server's own refusals by SQLSTATE, on the error or its cause", async () => {
    const server = await realServer();
    try {
      await server.query("set statement_timeout = 50");
      const timedOut = await failureOf(() => server.query("select pg_sleep(1)"));
      expect(isStoreOutage(timedOut)).toBe(true);
      expect(isStoreOutage(new Error("wrapped", { cause: timedOut }))).toBe(true);
      // A request that is wrong stays wrong: not a reason to retry.
      const wrong = await failureOf(() => server.query("select 1/0"));
      expect(isStoreOutage(wrong)).toBe(false);
    } finally {
      await server.end();
    }
    expect(isStoreOutage(new TypeError("x is undefined"))).toBe(false);
    expect(isStoreOutage(null)).toBe(false);
  });

  it("does not take a protocol violation of ours for an outage: more bind parameters than the protocol carries", async () => {
    const server = await realServer();
    try {
      const values = Array.from({ length: 70_000 }, (_, i) => i);
      const sql = `select cardinality(array[${values.map((i) => `$${i + 1}::int`).join(",")}])`;
      const bug = (await failureOf(() => server.query(sql, values))) as { code?: string };
      expect(bug.code).toBe("08P01");
      expect(isStoreOutage(bug)).toBe(false);
    } finally {
      await server.end().catch(() => undefined);
    }
  });

  it("knows node-redis's own errors for a Redis that is not there", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const freePort = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    const client = createClient({
      url: `redis://127.0.0.1:${freePort}`,
      disableOfflineQueue: true,
      socket: { reconnectStrategy: false },
    });
    client.on("error", () => {});
    const refused = await failureOf(() => client.connect());
    expect(isStoreOutage(refused)).toBe(true);
    // A command on a client that is not connected (Redis went away and it gave up).
    const offline = await failureOf(() => client.get("k"));
    expect((offline as Error).constructor.name).toMatch(/Client(Closed|Offline)Error/);
    expect(isStoreOutage(offline)).toBe(true);
  });
});
