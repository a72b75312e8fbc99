import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql, type Kysely } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import { migrateSchema, openDatabase, type Database } from "@svc/lib/db";
import { migrations } from "../../services/bots/migrations/index.js";
import { approvedSession } from "../support/paper.js";
import { call, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

interface Deployment {
  task_id: string;
  status: string;
  parked: boolean;
  result_summary: Record<string, unknown> | null;
}

const deploymentOf = async (p: RunningPlatform, slug: string) =>
  (await call(p.url, "GET", `/bots/${slug}/deployments`)).body.items[0] as Deployment;

describe("a paper session halted by a kill switch is parked, not failed", () => {
  let p: RunningPlatform;
  let taskId: string;
  beforeAll(async () => {
    p = await startTestPlatform("pglite");
    taskId = await approvedSession(p, "parky", "pk");
  }, 60_000);
  afterAll(async () => {
    await p?.close();
  });

  const engage = () =>
    call(p.url, "PUT", "/kill-switches/parky-drill", {
      scope: "bot",
      target: "parky",
      mode: "cancel",
      reason: "drill",
    });

  it("reads as halted and parked, with no error, and runs again on release", async () => {
    expect((await engage()).status).toBe(200);
    const parked = await eventually(
      "the session parks",
      () => deploymentOf(p, "parky"),
      (d) => d.parked,
    );
    expect(parked).toMatchObject({ task_id: taskId, status: "halted", parked: true });
    expect(parked.result_summary?.error).toBeUndefined();
    const row = await sql<{
      status: string;
      error: string | null;
    }>`select status, error from bots.bot_deployments where task_id = ${taskId}`.execute(
      p.platform.db.db,
    );
    expect(row.rows).toEqual([{ status: "parked", error: null }]);

    expect((await call(p.url, "DELETE", "/kill-switches/parky-drill")).status).toBe(200);
    const resumed = await eventually(
      "the session runs again on release",
      () => deploymentOf(p, "parky"),
      (d) => d.status === "running",
    );
    expect(resumed).toMatchObject({ task_id: taskId, parked: false });
  });

  it("a halt by request ends a parked session for good: halted, no longer parked", async () => {
    expect((await engage()).status).toBe(200);
    await eventually(
      "the session parks",
      () => deploymentOf(p, "parky"),
      (d) => d.parked,
    );
    const halted = await call(p.url, "POST", "/bots/parky/halt", { reason: "end of drill" });
    expect(halted.body).toMatchObject({ halted: 1, task_ids: [taskId] });
    expect(await deploymentOf(p, "parky")).toMatchObject({
      task_id: taskId,
      status: "halted",
      parked: false,
    });
    expect((await call(p.url, "DELETE", "/kill-switches/parky-drill")).status).toBe(200);
  });

  it("a halt that lands while a release restarts the session stops it for good: no runner left trading", async () => {
    // The release restarts the runner (reading its events, building it) over some milliseconds; a
    // halt arriving in that window once ended the session while the restart went on to start a
    // runner nothing could reach, which went on writing events and set the status back to running.
    for (const delayMs of [0, 5, 15, 30, 60]) {
      const task = await approvedSession(p, `parky-race-${delayMs}`, "pk");
      const slug = `parky-race-${delayMs}`;
      const key = `/kill-switches/${slug}-drill`;
      expect(
        (
          await call(p.url, "PUT", key, {
            scope: "bot",
            target: slug,
            mode: "cancel",
            reason: "race",
          })
        ).status,
      ).toBe(200);
      await eventually(
        `${slug} parks`,
        () => deploymentOf(p, slug),
        (d) => d.parked,
      );
      const [released, halted] = await Promise.all([
        call(p.url, "DELETE", key),
        new Promise((r) => setTimeout(r, delayMs)).then(() =>
          call(p.url, "POST", `/bots/${slug}/halt`, { reason: "race" }),
        ),
      ]);
      expect(released.status).toBe(200);
      expect(halted.status, halted.text).toBe(200);
      const events = async () =>
        (
          await sql<{
            n: number;
          }>`select count(*)::int as n from bots.bot_events where task_id = ${task}`.execute(
            p.platform.db.db,
          )
        ).rows[0]!.n;
      const settled = await events();
      // At speed 20 a runner left going writes a bar every 50 ms: a second is many bars.
      await new Promise((r) => setTimeout(r, 1_000));
      expect(await events(), `events written after the halt (delay ${delayMs} ms)`).toBe(settled);
      expect(await deploymentOf(p, slug)).toMatchObject({
        task_id: task,
        status: "halted",
        parked: false,
      });
    }
  }, 90_000);
});

describe("the parked-sessions migration", () => {
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({});
  });
  afterAll(async () => {
    await database?.close();
  });

  it("turns sessions recorded as halted by 'kill switch' into parked ones, and nothing else", async () => {
    const db = database.db as Kysely<unknown>;
    const before = Object.fromEntries(
      Object.entries(migrations).filter(([name]) => name < "2026-11-23T1300"),
    );
    await migrateSchema(db, "bots", before);
    await sql`insert into bots.bots (id, slug, name, kind, status, current_version, spec_hash, spec, created_by)
      values ('00000000-0000-4000-8000-000000000001', 'old', 'old', 'trading', 'active', 1, 'h', '{}', 'a')`.execute(
      db,
    );
    const deployment = (task: string, target: string, status: string, error: string | null) =>
      sql`insert into bots.bot_deployments (id, bot_id, version, target, status, task_id, request, error)
        values (gen_random_uuid(), '00000000-0000-4000-8000-000000000001', 1, ${target}, ${status},
          ${task}, '{}', ${error})`.execute(db);
    await deployment("paper-parked", "paper", "halted", "kill switch");
    await deployment("paper-halted", "paper", "halted", null);
    await deployment("bt-halted", "backtest", "halted", "kill switch");
    await deployment("paper-running", "paper", "running", null);

    await migrateSchema(db, "bots", migrations);
    const rows = await sql<{
      task_id: string;
      status: string;
      error: string | null;
    }>`select task_id, status, error from bots.bot_deployments order by task_id`.execute(db);
    expect(rows.rows).toEqual([
      { task_id: "bt-halted", status: "halted", error: "kill switch" },
      { task_id: "paper-halted", status: "halted", error: null },
      { task_id: "paper-parked", status: "parked", error: null },
      { task_id: "paper-running", status: "running", error: null },
    ]);
    await expect(
      sql`update bots.bot_deployments set status = 'napping' where task_id = 'paper-parked'`.execute(
        db,
      ),
    ).rejects.toThrow(/bot_deployments_status_check/);
  });
});
