import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { RunningPlatform } from "@svc/all-in-one";
import { approvedSession, statusOf } from "../support/paper.js";
import { eventually } from "../support/until.js";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";

const SEEDED = 1_200;
const STOPPED_S = 20;

describe("a drill on a platform of more than 1,000 bots", () => {
  let p: RunningPlatform;

  beforeAll(async () => {
    p = await startTestPlatform("pglite", {
      SVC_KILLSWITCH_POLL_INTERVAL_S: "1",
      SVC_KILLSWITCH_DRILL_DRAINING_S: "3",
      SVC_KILLSWITCH_DRILL_STOPPED_HF_S: "5",
      SVC_KILLSWITCH_DRILL_STOPPED_S: String(STOPPED_S),
    });
    // Bots with nothing running, older than any the test makes through the API, so the bot with
    // the session is the last of the list (oldest first), past the first page of 1,000.
    await sql`insert into bots.bots (id, slug, name, kind, status, fleet, current_version, spec_hash, spec, created_by, created_at)
      select gen_random_uuid(), 'idle-' || g, 'idle ' || g, 'trading', 'draft', 'idle', 1, 'seeded',
             jsonb_build_object('name', 'idle ' || g), 'test',
             timestamptz '2026-01-01' + g * interval '1 millisecond'
      from generate_series(1, ${SEEDED}) g`.execute(p.platform.db.db);
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
  });

  it("judges the session of the last bot listed", async () => {
    await approvedSession(p, "last-bot", "drills", 20, { universe: { timeframe: "1h" } });
    await eventually(
      "the last bot's session runs",
      () => statusOf(p, "last-bot"),
      (s) => s === "running",
    );
    const firstPage = (await call(p.url, "GET", "/bots?limit=1000")).body;
    expect(firstPage.items.map((b: { slug: string }) => b.slug)).not.toContain("last-bot");
    expect(firstPage.next_page_token).not.toBe("");

    const started = await call(p.url, "POST", "/kill-switch/drills", { reason: "many bots" });
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body).toMatchObject({ state: "running", bots: 1 });
    expect(started.body.per_bot.map((b: { bot_slug: string }) => b.bot_slug)).toEqual(["last-bot"]);
    const drill = await eventually(
      "the drill ends",
      async () => (await call(p.url, "GET", `/kill-switch/drills/${started.body.id}`)).body,
      (d) => d.state !== "running",
      STOPPED_S * 1_000,
    );
    expect(drill).toMatchObject({ state: "finished", verdict: "pass", bots: 1 });
    expect(drill.per_bot[0]).toMatchObject({ bot_slug: "last-bot", verdict: "pass" });
  }, 120_000);
});
