import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { approvedSession } from "../../test/support/paper.js";
import {
  call,
  PLATFORM_START_TIMEOUT_MS,
  startTestPlatform,
} from "../../test/support/test-platform.js";

const run = promisify(execFile);

describe("svc halt-all", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("pglite");
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
  });

  it("calls every halt route in parallel, prints each result, and what ran is halted", async () => {
    // Running work of two classes: a paper session here, and a backtest another process holds.
    const session = await approvedSession(p, "drill-bot", "drill");
    const botId = (await call(p.url, "GET", "/bots/drill-bot")).body.id as string;
    await sql`insert into bots.bot_deployments (id, bot_id, version, target, status, task_id, request, host, host_seen_at)
      values (gen_random_uuid(), ${botId}, 1, 'backtest', 'running', 'bt-drill',
              ${JSON.stringify({ data_source: "synthetic:3", start: null, end: null })},
              'elsewhere:7:bt-live', now())`.execute(p.platform.db.db);
    const main = fileURLToPath(new URL("./main.ts", import.meta.url));
    // Without --yes, and no terminal to ask on (execFile's stdin is a pipe), nothing is halted.
    const refused = await run(process.execPath, ["--import", "tsx", main, "halt-all"], {
      env: { ...process.env, SVC_API_URL: p.url },
    }).then(
      () => ({ code: 0, stdout: "", stderr: "" }),
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain(`on ${p.url}; stdin is not a terminal, so pass --yes`);
    const live = (await call(p.url, "GET", "/bots/drill-bot/deployments")).body.items as Array<{
      task_id: string;
      status: string;
    }>;
    expect(live.find((d) => d.task_id === session)?.status).toBe("running");
    const { stdout } = await run(
      process.execPath,
      ["--import", "tsx", main, "halt-all", "--reason", "quarterly drill", "--yes"],
      { env: { ...process.env, SVC_API_URL: p.url } },
    );
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(6);
    for (const route of [
      "/agents/halt",
      "/quant-agents/halt",
      "/paper/stop-all",
      "/bots/halt-all",
      "/rl/halt-all",
      "/workflows/halt",
    ]) {
      expect(lines.find((l) => l.includes(route))).toMatch(/^ok {3}200 /);
    }
    // The routes overlap (paper sessions, backtests), so which one halts a task varies.
    const halted = lines.map((l) => Number(/ halted (\d+) /.exec(l)?.[1] ?? 0));
    expect(halted.reduce((a, b) => a + b, 0)).toBe(2);
    const rows = await sql<{
      task_id: string;
      status: string;
    }>`select task_id, status from bots.bot_deployments order by task_id`.execute(p.platform.db.db);
    expect(rows.rows).toEqual([
      { task_id: "bt-drill", status: "halted" },
      { task_id: session, status: "halted" },
    ]);
  }, 60_000);

  it("exits non-zero and says why when the platform cannot be reached", async () => {
    const main = fileURLToPath(new URL("./main.ts", import.meta.url));
    const failed = await run(process.execPath, ["--import", "tsx", main, "halt-all", "--yes"], {
      env: { ...process.env, SVC_API_URL: "http://127.0.0.1:1" },
    }).catch((e) => e);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/FAIL 0 +\/agents\/halt +unreachable: http:\/\/127\.0\.0\.1:1 /);
  }, 30_000);
});
