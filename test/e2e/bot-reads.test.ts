import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, startTestPlatform } from "../support/test-platform.js";

/** What the bots schema holds: row counts and the newest update, enough to see any write. */
async function fingerprint(p: RunningPlatform): Promise<Record<string, unknown>> {
  const r = await sql<Record<string, unknown>>`select
      (select count(*)::int from bots.bots) as bots,
      (select max(updated_at)::text from bots.bots) as bots_updated,
      (select count(*)::int from bots.bot_versions) as versions,
      (select count(*)::int from bots.bot_deployments) as deployments,
      (select max(updated_at)::text from bots.bot_deployments) as deployments_updated,
      (select count(*)::int from bots.bot_events) as events,
      (select count(*)::int from bots.bot_checkpoints) as checkpoints`.execute(p.platform.db.db);
  return r.rows[0]!;
}

describe("reading a bot writes nothing", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("pglite");
  });
  afterAll(async () => {
    await p?.close();
  });

  it("leaves the database as it was, however long the history since the last checkpoint", async () => {
    const created = await call(p.url, "POST", "/bots", {
      name: "Long history",
      slug: "long-history",
      kind: "trading",
      strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
    });
    expect(created.status).toBe(201);
    // History written before checkpoints came with appends: far past any checkpoint.
    await sql`insert into bots.bot_events (bot_id, seq, task_id, type, data)
      select ${created.body.id}::uuid, g, 'seeded', 'bar_received',
        jsonb_build_object('index', g - 1, 'time', 0, 'open', 1, 'high', 1, 'low', 1, 'close', 1)
      from generate_series(1, 1200) g`.execute(p.platform.db.db);
    const before = await fingerprint(p);
    expect(before).toMatchObject({ events: 1200, checkpoints: 0 });

    const bot = await call(p.url, "GET", "/bots/long-history");
    expect(bot.status).toBe(200);
    const snapshot = await call(p.url, "GET", "/bots/long-history/state/snapshot");
    expect(snapshot.body).toMatchObject({ seq: "1200", metrics: { bars: 1200 } });
    expect((await call(p.url, "GET", "/bots/long-history/state/events?limit=5")).status).toBe(200);
    expect((await call(p.url, "GET", "/bots/long-history/deployments")).status).toBe(200);
    expect((await call(p.url, "GET", "/bots/long-history/versions")).status).toBe(200);
    expect((await call(p.url, "GET", "/bots")).status).toBe(200);
    const replay = await call(p.url, "POST", "/bots/long-history/replay", { as_of_seq: 700 });
    expect(replay.body.as_of_seq).toBe("700");

    expect(await fingerprint(p)).toEqual(before);
  });
});
