import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

// A compliance run whose process died must not stay running forever: a report rests only on runs
// that finished, and a run nobody runs any more never will. Rows are left as a dead host leaves
// them; the live process ends them failed once their holder's lease (SVC_RUNNER_LEASE_S) lapsed.

interface Run {
  id: string;
  status: string;
  error?: string;
  passed?: boolean;
}

describe("compliance runs of a process that died", () => {
  let p: RunningPlatform;
  let botId = "";
  let hash = "";

  async function leave(taskId: string, status: string, host: string | null, seen: string | null) {
    const id = crypto.randomUUID();
    await sql`insert into bots.compliance_runs (id, bot_id, kind, version, version_hash, task_id,
        status, peak_multiple, cases_total, requested_by, host, host_seen_at, started_at)
      values (${id}::uuid, ${botId}::uuid, 'conformance', 1, ${hash}, ${taskId}, ${status}, 0, 11,
        'alice', ${host}, ${seen === null ? null : sql`now() + ${sql.raw(`interval '${seen}'`)}`},
        ${status === "running" ? sql`now()` : null})`.execute(p.platform.db.db);
    return id;
  }
  const get = async (id: string): Promise<Run> =>
    (await call(p.url, "GET", `/bots/cri/compliance-runs/${id}`)).body as Run;

  beforeAll(async () => {
    p = await startTestPlatform("pglite");
    const bot = await call(p.url, "POST", "/bots", {
      name: "cri",
      slug: "cri",
      kind: "trading",
      strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
    });
    expect(bot.status).toBe(201);
    botId = bot.body.id;
    hash = bot.body.spec_hash;
  });
  afterAll(async () => {
    await p?.close();
  });

  it("ends failed, as interrupted, a run whose holder's lease lapsed, and leaves a live holder's alone", async () => {
    const dead = await leave("cf-dead0001", "running", "gone:41:bt-dead", "-1 hour");
    const neverStarted = await leave("cf-dead0002", "pending", "gone:41:bt-dead", "-1 hour");
    const beforeLeases = await leave("cf-dead0003", "running", null, null);
    // Another process that keeps renewing its lease: its run is its own.
    const alive = await leave("cf-alive001", "running", "elsewhere:7:bt-live", "10 minutes");

    for (const id of [dead, neverStarted, beforeLeases]) {
      const run = await eventually(
        `run ${id} of a dead process ends`,
        () => get(id),
        (r) => r.status !== "pending" && r.status !== "running",
        20_000,
      );
      expect(run).toMatchObject({ status: "failed", passed: false });
      expect(run.error).toMatch(/^interrupted: the process running it stopped before it finished/);
    }
    expect((await get(alive)).status).toBe("running");

    // The year's report never rests on the interrupted runs: Art. 6 has no completed run.
    const year = new Date().getUTCFullYear();
    const report = await call(p.url, "GET", `/bots/cri/risk/validation-report?year=${year}`);
    expect(report.status).toBe(200);
    expect(report.text).toMatch(/No conformance test of the current version/);
  });
});
