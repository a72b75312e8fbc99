import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import {
  call,
  createTestDatabase,
  PLATFORM_START_TIMEOUT_MS,
  startTestPlatform,
} from "../support/test-platform.js";

// A database that does not answer within the request's deadline is the client's to retry: 503
// with Retry-After naming the cause, never a 500. Found by /workflows/halt, whose UPDATE waited
// on row locks past the statement timeout on a loaded machine and answered 500.
describe("a store past its deadline, through the API (real Postgres)", () => {
  let p: RunningPlatform;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let locker: pg.Client;

  beforeAll(async () => {
    db = await createTestDatabase();
    p = await startTestPlatform("postgres", {
      SVC_DATABASE_URL: db.url,
      SVC_DB_TIMEOUT_MS: "1500",
    });
    locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
  }, PLATFORM_START_TIMEOUT_MS);

  afterAll(async () => {
    await locker?.end().catch(() => undefined);
    await p?.close();
    await db?.drop();
  });

  it("answers 503 store_unavailable with Retry-After while a lock outlasts the statement timeout, and 200 once it is gone", async () => {
    // Reads go on; the halt's UPDATE of the deployments waits for this lock.
    await locker.query("begin");
    await locker.query("lock table bots.bot_deployments in share mode");
    try {
      const refused = await call(p.url, "POST", "/workflows/halt", { reason: "drill" });
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toMatch(/^[0-9]+$/);
      expect(refused.body.error.code).toBe("store_unavailable");
      expect(refused.body.error.message).toMatch(/did not answer in time; retry/);
      // Internals (SQL, the server's own words) stay in the logs.
      expect(JSON.stringify(refused.body)).not.toMatch(/statement timeout|bot_deployments/);
    } finally {
      await locker.query("rollback");
    }
    const halted = await call(p.url, "POST", "/workflows/halt", { reason: "drill" });
    expect(halted.status).toBe(200);
    expect(halted.body).toMatchObject({ halted: 0, task_ids: [] });
  });
});
