import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import { approvedSession, statusOf } from "../support/paper.js";
import { eventually } from "../support/until.js";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";

interface RunningBot {
  bot_id: string;
  slug: string;
  sessions: Array<{ task_id: string; version: number; high_frequency: boolean; timeframe: string }>;
}

/**
 * GET /paper/running-bots (ListRunningPaperBots), what a drill's roster reads: the bots with a
 * paper session running now, a page of bots at a time, keyset by bot id.
 */
describe("the bots with a running paper session", () => {
  let p: RunningPlatform;
  /**
   * `count` bots seeded straight into the tables, each with a paper session in `status` held by a
   * host that is not this process (its lease fresh for an hour, so no runner here takes it).
   */
  const seed = async (prefix: string, count: number, status: string) => {
    const db = p.platform.db.db;
    await sql`insert into bots.bots (id, slug, name, kind, status, fleet, current_version, spec_hash, spec, created_by)
      select gen_random_uuid(), ${prefix} || g, ${prefix} || g, 'trading', 'draft', null, 1, 'seeded',
             jsonb_build_object('name', ${prefix} || g), 'test'
      from generate_series(1, ${count}) g`.execute(db);
    // Odd bots are high-frequency on 5s bars, even ones 1h: the pace a drill judges each by.
    await sql`insert into bots.bot_versions (bot_id, version, spec_hash, spec, created_by)
      select id, 1, 'seeded', jsonb_build_object(
               'engine', jsonb_build_object('high_frequency', substr(slug, length(${prefix}) + 1)::int % 2 = 1),
               'universe', jsonb_build_object('timeframe', case when substr(slug, length(${prefix}) + 1)::int % 2 = 1 then '5s' else '1h' end)),
             'test'
      from bots.bots where slug like ${`${prefix}%`}`.execute(db);
    await sql`insert into bots.bot_deployments (id, bot_id, version, target, status, task_id, request, host, host_seen_at)
      select gen_random_uuid(), id, 1, 'paper', ${status}, 'pt-' || slug, '{}', 'elsewhere:1:test', now() + interval '1 hour'
      from bots.bots where slug like ${`${prefix}%`}`.execute(db);
  };
  const page = (query: string) => call(p.url, "GET", `/paper/running-bots?${query}`);

  beforeAll(async () => {
    p = await startTestPlatform("postgres");
    await seed("run-", 250, "running");
    // Sessions that are not running now: none of these bots is listed.
    await seed("ended-", 20, "success");
    await seed("halted-", 20, "halted");
    await seed("parked-", 20, "parked");
    // Backtests running are not paper sessions.
    await sql`insert into bots.bot_deployments (id, bot_id, version, target, status, task_id, request)
      select gen_random_uuid(), id, 1, 'backtest', 'running', 'bt-' || slug, '{}'
      from bots.bots where slug like 'ended-%'`.execute(p.platform.db.db);
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
  });

  it("lists every running bot exactly once across pages while bots start between pages, each session with its pace", async () => {
    const seen: RunningBot[] = [];
    let token = "";
    let pages = 0;
    do {
      const res = await page(`limit=100${token ? `&page_token=${token}` : ""}`);
      expect(res.status, res.text).toBe(200);
      seen.push(...(res.body.items as RunningBot[]));
      token = res.body.next_page_token;
      if (pages++ === 0) await seed("late-", 40, "running");
    } while (token);
    const slugs = seen.map((b) => b.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
    for (let i = 1; i <= 250; i++) expect(slugs).toContain(`run-${i}`);
    expect(slugs.every((s) => /^(run|late)-\d+$/.test(s))).toBe(true);
    // Keyset by bot id: in order, and a bot started between pages is listed when it sorts later.
    expect(seen.map((b) => b.bot_id)).toEqual([...seen.map((b) => b.bot_id)].sort());
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(seen.find((b) => b.slug === "run-7")!.sessions).toEqual([
      { task_id: "pt-run-7", version: 1, high_frequency: true, timeframe: "5s" },
    ]);
    expect(seen.find((b) => b.slug === "run-8")!.sessions).toEqual([
      { task_id: "pt-run-8", version: 1, high_frequency: false, timeframe: "1h" },
    ]);
  });

  it("refuses a malformed page_token, another list's, and a limit past 1000 with a 400 naming the field", async () => {
    for (const bad of [
      "not-a-token",
      (await call(p.url, "GET", "/bots?limit=1")).body.next_page_token,
    ]) {
      const res = await page(`page_token=${encodeURIComponent(bad)}`);
      expect([res.status, res.body.error?.details?.field], res.text).toEqual([400, "page_token"]);
    }
    const tooMany = await page("limit=1001");
    expect([tooMany.status, tooMany.body.error?.details?.field]).toEqual([400, "limit"]);
  });

  it("lists a bot while its session runs and not once it is stopped", async () => {
    const taskId = await approvedSession(p, "stopping-bot", "roster", 20, {
      universe: { timeframe: "1h" },
    });
    await eventually(
      "the session runs",
      () => statusOf(p, "stopping-bot"),
      (s) => s === "running",
    );
    const listed = async () => {
      const all: RunningBot[] = [];
      let token = "";
      do {
        const res = await page(`limit=1000${token ? `&page_token=${token}` : ""}`);
        all.push(...(res.body.items as RunningBot[]));
        token = res.body.next_page_token;
      } while (token);
      return all.find((b) => b.slug === "stopping-bot");
    };
    expect((await listed())?.sessions).toEqual([
      { task_id: taskId, version: 1, high_frequency: false, timeframe: "1h" },
    ]);
    const stopped = await call(p.url, "POST", `/bots/stopping-bot/paper/stop/${taskId}`);
    expect(stopped.status, stopped.text).toBe(200);
    await eventually("the stopped session is no longer listed", listed, (b) => b === undefined);
  }, 60_000);
});
