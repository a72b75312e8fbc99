import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, createTestDatabase, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

// A sweep is work of the durable backtest queue: the process that accepted it dies by SIGKILL
// mid-sweep, and two other processes on the same database share what is left. Every combination
// ends once, as one trial announced once: none lost, none doubled.

const allInOneMain = fileURLToPath(new URL("../../all-in-one/src/main.ts", import.meta.url));
const DAY = 86_400_000;
const COMBINATIONS = 24;
const TERMINAL = ["success", "failed", "halted"];

interface Row {
  id: string;
  task_id: string;
  status: string;
  host: string | null;
  attempts: number;
  sweep_index: number;
}

/** The whole platform in a child process, so that it can die by SIGKILL mid-sweep. */
async function startChildPlatform(
  databaseUrl: string,
): Promise<{ child: ChildProcess; url: string }> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith("SVC_")),
  );
  const child = spawn(process.execPath, ["--import", "tsx", allInOneMain], {
    env: { ...env, SVC_DATABASE_URL: databaseUrl, SVC_PORT: "0", SVC_LOG_LEVEL: "silent" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) =>
      reject(new Error(`the platform process exited (${code}) before it was ready`)),
    );
    createInterface({ input: child.stdout! }).on("line", (l) => {
      const m = /platform ready in \d+ ms at (\S+)/.exec(l);
      if (m) resolve(m[1]!);
    });
  });
  return { child, url };
}

describe("a sweep whose process dies (real Postgres)", () => {
  let child: ChildProcess | undefined;
  const platforms: RunningPlatform[] = [];
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    for (const p of platforms.splice(0)) await p.close();
    await cleanup?.();
  }, 60_000);

  it("SIGKILL mid-sweep: two other processes finish it, one trial per combination", async () => {
    const db = await createTestDatabase();
    const pool = new pg.Pool({ connectionString: db.url, max: 3 });
    pool.on("error", () => {});
    pool.on("connect", (client) => client.on("error", () => {}));
    cleanup = async () => {
      await pool.end();
      await db.drop();
    };
    const q = async <R extends object>(text: string) => (await pool.query<R>(text)).rows;
    const rows = () =>
      q<Row>(
        "select id, task_id, status, host, attempts, sweep_index from bots.bot_deployments where sweep_id is not null order by sweep_index",
      );

    const first = await startChildPlatform(db.url);
    child = first.child;
    const bot = await call(first.url, "POST", "/bots", {
      name: "sweep-crash",
      slug: "sweep-crash",
      kind: "trading",
      strategy: { family: "ma_crossover", parameters: { fast: 10, slow: 40 } },
      engine: { initial_cash: 100000, fee_bps: 5, slippage_bps: 2, position_size: 1 },
    });
    expect(bot.status).toBe(201);
    // Tens of thousands of daily bars per run, so that the crash finds the sweep unfinished.
    const created = await call(first.url, "POST", "/bots/sweep-crash/sweeps", {
      request_key: "crash-1",
      parameters: [
        { name: "fast", values: [4, 6, 8, 10, 12, 14] },
        { name: "slow", values: [30, 50, 70, 90] },
      ],
      data_source: "synthetic:11",
      start: "2000-01-01T00:00:00Z",
      end: new Date(Date.UTC(2000, 0, 1) + 60_000 * DAY).toISOString(),
    });
    expect(created.status).toBe(202);
    expect(created.body.combinations).toBe(COMBINATIONS);
    await eventually(
      "a run of the sweep starts",
      rows,
      (rs) => rs.some((r) => r.host !== null),
      60_000,
    );
    child.kill("SIGKILL");
    await once(child, "exit");

    const left = await rows();
    expect(left).toHaveLength(COMBINATIONS);
    const unfinished = left.filter((r) => !TERMINAL.includes(r.status));
    // The crash must have left work behind, or this proves nothing.
    expect(unfinished.length).toBeGreaterThan(1);

    // Two processes on the same database, a short lease so the dead one's runs are taken over soon.
    for (let i = 0; i < 2; i++)
      platforms.push(
        await startTestPlatform("postgres", { SVC_DATABASE_URL: db.url, SVC_RUNNER_LEASE_S: "3" }),
      );
    const done = await eventually(
      "every run of the sweep ends",
      rows,
      (rs) => rs.every((r) => TERMINAL.includes(r.status)),
      180_000,
    );
    expect(done.map((r) => r.status)).toEqual(done.map(() => "success"));
    const before = new Map(left.map((r) => [r.task_id, r]));
    for (const r of done) {
      const was = before.get(r.task_id)!;
      // Finished before the crash: untouched since. Otherwise started once more, by a survivor.
      expect([r.sweep_index, r.attempts]).toEqual([
        r.sweep_index,
        TERMINAL.includes(was.status) ? was.attempts : was.attempts + 1,
      ]);
    }
    const survivors = new Set(
      done.filter((r) => !TERMINAL.includes(before.get(r.task_id)!.status)).map((r) => r.host),
    );
    // The two processes shared the rest of the sweep.
    expect(survivors.size).toBe(2);

    const trials = await q<{ trial_id: string; n: number }>(
      "select trial_id, count(*)::int as n from bots.trial_ledger group by trial_id",
    );
    expect(trials.map((t) => t.trial_id).sort()).toEqual(done.map((r) => r.id).sort());
    expect(trials.every((t) => t.n === 1)).toBe(true);
    const announced = await q<{ n: number }>(
      "select count(*)::int as n from bots.outbox where subject = 'svc.bots.trial_recorded'",
    );
    expect(announced[0]!.n).toBe(COMBINATIONS);
    const sweep = await call(
      platforms[0]!.url,
      "GET",
      `/bots/sweep-crash/sweeps/${created.body.id}`,
    );
    expect([sweep.body.status, sweep.body.runs_succeeded]).toEqual(["done", COMBINATIONS]);
  }, 300_000);
});
