import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, createTestDatabase, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

// Backtests outlive the process that runs them: a bots service that dies (SIGKILL) leaves rows
// pending or running; a live process re-runs them once each, never one a live process still holds,
// and the halt routes reach every one of them, wherever it runs.

const allInOneMain = fileURLToPath(new URL("../../all-in-one/src/main.ts", import.meta.url));
const DAY = 86_400_000;
const spec = (slug: string) => ({
  name: slug,
  slug,
  kind: "trading",
  strategy: { family: "ma_crossover", parameters: { fast: 10, slow: 40 } },
  engine: { initial_cash: 100000, fee_bps: 5, slippage_bps: 2, position_size: 1 },
});
/** A long synthetic run (tens of thousands of daily bars), so that a crash or a halt finds it unfinished. */
const longRun = (seed: number, days = 60_000) => ({
  data_source: `synthetic:${seed}`,
  start: "2000-01-01T00:00:00Z",
  end: new Date(Date.UTC(2000, 0, 1) + days * DAY).toISOString(),
});

interface Row {
  id: string;
  task_id: string;
  status: string;
  error: string | null;
  host: string | null;
  attempts: number;
}
const TERMINAL = ["success", "failed", "halted"];

/** A fresh database, a pool on it for the test's own reads and writes, and a way to start platforms on it. */
async function testBed() {
  const db = await createTestDatabase();
  const pool = new pg.Pool({ connectionString: db.url, max: 3 });
  // Dropping the database WITH (FORCE) ends connections that are still closing; their error must not go uncaught.
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  const platforms: RunningPlatform[] = [];
  const q = async <R extends object>(text: string, values: unknown[] = []) =>
    (await pool.query<R>(text, values)).rows;
  return {
    url: db.url,
    q,
    async start(env: Record<string, string> = {}) {
      const p = await startTestPlatform("postgres", { SVC_DATABASE_URL: db.url, ...env });
      platforms.push(p);
      return p;
    },
    async stop(p: RunningPlatform) {
      platforms.splice(platforms.indexOf(p), 1);
      await p.close();
    },
    backtests: () =>
      q<Row>(
        "select id, task_id, status, error, host, attempts from bots.bot_deployments where target = 'backtest' order by task_id",
      ),
    /** trial_id -> how many trials carry it. */
    trials: async () =>
      new Map(
        (
          await q<{ trial_id: string; n: number }>(
            "select trial_id, count(*)::int as n from bots.trial_ledger group by trial_id",
          )
        ).map((r) => [r.trial_id, r.n]),
      ),
    announced: async () =>
      (
        await q<{ n: number }>(
          "select count(*)::int as n from bots.outbox where subject = 'svc.bots.trial_recorded'",
        )
      )[0]!.n,
    /** A backtest row as a process left it: `seenAgoS` null means no lease at all (a row from before leases). */
    async orphan(
      botId: string,
      taskId: string,
      status: "pending" | "running",
      host: string | null,
      seenAgoS: number | null,
      attempts = 1,
    ) {
      const seen = seenAgoS === null ? null : `${seenAgoS} seconds`;
      await q(
        `insert into bots.bot_deployments (id, bot_id, version, target, status, task_id, request, host, host_seen_at, attempts)
         values (gen_random_uuid(), $1, 1, 'backtest', $2, $3, $4, $5, case when $6::interval is null then null else now() - $6::interval end, $7)`,
        [
          botId,
          status,
          taskId,
          JSON.stringify({ data_source: "synthetic:3", start: null, end: null }),
          host,
          seen,
          attempts,
        ],
      );
    },
    async close() {
      for (const p of platforms.splice(0)) await p.close();
      await pool.end();
      await db.drop();
    },
  };
}
type TestBed = Awaited<ReturnType<typeof testBed>>;

/** The whole platform in a child process, so that it can die by SIGKILL mid-run. */
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

async function createBot(url: string, slug: string): Promise<string> {
  const res = await call(url, "POST", "/bots", spec(slug));
  expect(res.status).toBe(201);
  return res.body.id;
}

const allTerminal = (rows: Row[]) =>
  rows.length > 0 && rows.every((r) => TERMINAL.includes(r.status));

describe("backtests interrupted by the death of their process (real Postgres)", () => {
  let bed: TestBed | undefined;
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    child = undefined;
    await bed?.close();
    bed = undefined;
    // A platform's graceful stop waits for the runs it cancelled: under load, longer than 30 s.
  }, 60_000);

  it("a SIGKILL mid-run: the next process re-runs every unfinished backtest once, one trial each", async () => {
    bed = await testBed();
    const first = await startChildPlatform(bed.url);
    child = first.child;
    for (const slug of ["k1", "k2", "k3", "k4"]) await createBot(first.url, slug);
    const submitted = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        call(first.url, "POST", `/bots/k${(i % 4) + 1}/backtest`, longRun(i)),
      ),
    );
    expect(submitted.map((r) => r.status)).toEqual(submitted.map(() => 202));
    child.kill("SIGKILL");
    await once(child, "exit");

    const left = await bed.backtests();
    expect(left).toHaveLength(40);
    const unfinished = left.filter((r) => !TERMINAL.includes(r.status));
    // The crash must have left work behind, or this test proves nothing: runs still waiting in the
    // queue (no process held them) among it, as 40 at once cannot all have a worker.
    expect(unfinished.length).toBeGreaterThan(0);
    expect(unfinished.some((r) => r.status === "pending" && r.host === null)).toBe(true);

    // A short lease, so the test does not wait out the default 15 s: the dead process's leases
    // lapse after 3 s, and the recovery pass (every third of the lease) takes them over.
    await bed.start({ SVC_RUNNER_LEASE_S: "3" });
    // Two workers take the forty in turn (SVC_BACKTEST_WORKERS): on a loaded 2-core machine
    // that has taken 80 s.
    const done = await eventually(
      "every backtest ends",
      () => bed!.backtests(),
      allTerminal,
      150_000,
    );
    expect(done.map((r) => [r.task_id, r.status])).toEqual(left.map((r) => [r.task_id, "success"]));
    const before = new Map(left.map((r) => [r.task_id, r]));
    // Started exactly once more: the finished ones were never touched again, the others (queued,
    // or started by the dead process) ran once here.
    for (const r of done) {
      const was = before.get(r.task_id)!;
      expect([r.task_id, r.attempts]).toEqual([
        r.task_id,
        TERMINAL.includes(was.status) ? was.attempts : was.attempts + 1,
      ]);
    }
    const trials = await bed.trials();
    expect([...trials.keys()].sort()).toEqual(done.map((r) => r.id).sort());
    expect([...trials.values()].every((n) => n === 1)).toBe(true);
    expect(await bed.announced()).toBe(40);
  }, 240_000);

  it("rows of a vanished host, or from before leases, end by themselves; one that died too often fails as interrupted", async () => {
    bed = await testBed();
    const p0 = await bed.start();
    const bot = await createBot(p0.url, "orphans");
    await bed.stop(p0);
    await bed.orphan(bot, "bt-legacy-pending", "pending", null, null, 0);
    await bed.orphan(bot, "bt-legacy-running", "running", null, null, 0);
    await bed.orphan(bot, "bt-stale-pending", "pending", "gone:1:bt-dead", 60);
    await bed.orphan(bot, "bt-stale-running", "running", "gone:1:bt-dead", 60);
    await bed.orphan(bot, "bt-crashes-always", "running", "gone:1:bt-dead", 60, 3);

    await bed.start();
    const done = await eventually(
      "every backtest ends",
      () => bed!.backtests(),
      allTerminal,
      20_000,
    );
    expect(done.map((r) => [r.task_id, r.status, r.error])).toEqual([
      ["bt-crashes-always", "failed", "interrupted"],
      ["bt-legacy-pending", "success", null],
      ["bt-legacy-running", "success", null],
      ["bt-stale-pending", "success", null],
      ["bt-stale-running", "success", null],
    ]);
    const trials = await bed.trials();
    expect([...trials.keys()].sort()).toEqual(
      done
        .filter((r) => r.status === "success")
        .map((r) => r.id)
        .sort(),
    );
    expect([...trials.values()]).toEqual([1, 1, 1, 1]);
    expect(await bed.announced()).toBe(4);
  }, 60_000);

  it("a restart never takes a backtest a live process holds; two processes starting at once share the orphans", async () => {
    bed = await testBed();
    const p0 = await bed.start();
    const bot = await createBot(p0.url, "shared");
    await bed.stop(p0);
    // Another bots-service process, alive: it renews its lease as a real one does.
    await bed.orphan(bot, "bt-live-elsewhere", "running", "elsewhere:7:bt-live", 0);
    const renew = setInterval(
      () =>
        void bed!
          .q(
            "update bots.bot_deployments set host_seen_at = now() where host = 'elsewhere:7:bt-live'",
          )
          .catch(() => undefined),
      1_000,
    );
    try {
      for (let i = 0; i < 6; i++)
        await bed.orphan(
          bot,
          `bt-orphan-${i}`,
          i % 2 ? "running" : "pending",
          "gone:1:bt-dead",
          60,
        );
      const [a] = await Promise.all([bed.start(), bed.start()]);
      const orphansDone = await eventually(
        "the orphans end",
        async () => (await bed!.backtests()).filter((r) => r.task_id.startsWith("bt-orphan-")),
        allTerminal,
        20_000,
      );
      // attempts 2: each orphan was claimed by exactly one of the two processes.
      expect(orphansDone.map((r) => [r.task_id, r.status, r.attempts])).toEqual(
        orphansDone.map((r) => [r.task_id, "success", 2]),
      );
      const trials = await bed.trials();
      expect(orphansDone.map((r) => trials.get(r.id))).toEqual(orphansDone.map(() => 1));

      // A later pass (every 5 s) takes a new orphan, and still leaves the live process's run alone.
      await bed.orphan(bot, "bt-orphan-late", "running", "gone:1:bt-dead", 60);
      await eventually(
        "a later pass takes the late orphan",
        async () => (await bed!.backtests()).find((r) => r.task_id === "bt-orphan-late")!,
        (r) => r.status === "success",
        20_000,
      );
      const live = (await bed.backtests()).find((r) => r.task_id === "bt-live-elsewhere")!;
      expect([live.status, live.host, live.attempts]).toEqual([
        "running",
        "elsewhere:7:bt-live",
        1,
      ]);
      expect(trials.has(live.id)).toBe(false);

      // The halt reaches it there: the row says halted, which the other process reads at its next slice.
      const halted = await call(a.url, "POST", "/workflows/halt", { reason: "stop everything" });
      expect(halted.body).toMatchObject({ halted: 1, task_ids: ["bt-live-elsewhere"] });
      const after = (await bed.backtests()).find((r) => r.task_id === "bt-live-elsewhere")!;
      expect([after.status, after.error]).toEqual(["halted", "stop everything"]);
    } finally {
      clearInterval(renew);
    }
  }, 60_000);

  it("POST /workflows/halt halts every pending or running backtest: queued here, running here, held elsewhere", async () => {
    bed = await testBed();
    const p = await bed.start();
    const bot = await createBot(p.url, "halted");
    /** Submissions still arriving, and a halt once a third of them are answered. */
    const haltDuringBurst = async (round: number) => {
      let answered = 0;
      const posts = Array.from({ length: 30 }, (_, i) =>
        call(p.url, "POST", "/bots/halted/backtest", longRun(100 + 30 * round + i, 90_000)).then(
          (r) => (answered++, r),
        ),
      );
      await eventually(
        "the first submissions are answered",
        async () => answered,
        (n) => n >= 10,
        20_000,
      );
      if (round === 0) {
        // Another live process holds these (its lease is fresh: this one must not take them over).
        await bed!.orphan(bot, "bt-pending-elsewhere", "pending", "elsewhere:7:bt-live", 0);
        await bed!.orphan(bot, "bt-running-elsewhere", "running", "elsewhere:7:bt-live", 0);
      }
      // Under load the halt's UPDATE can wait on the rows that finishing runs hold past the
      // store's deadline: that is a 503 with Retry-After, and a client sends the halt again.
      const halt = await eventually(
        "the halt is answered",
        () => call(p.url, "POST", "/workflows/halt", {}),
        (r) => r.status !== 503,
        60_000,
      );
      expect(halt.status).toBe(200);
      const named: string[] = halt.body.task_ids;
      expect(halt.body.halted).toBe(named.length);
      // Every one named is halted at once, wherever it runs.
      const atHalt = new Map((await bed!.backtests()).map((r) => [r.task_id, r.status]));
      expect(named.map((id) => atHalt.get(id))).toEqual(named.map(() => "halted"));
      return { named, answers: await Promise.all(posts) };
    };
    // The halt races this process's runs, and the burst slows it down: on a fast machine every
    // run of a burst had ended by the time the halt was answered (once in twelve), and a halt
    // that catches none of them proves nothing about them. Then another burst goes out.
    const named: string[] = [];
    const answers: Array<Awaited<ReturnType<typeof call>>> = [];
    const accepted = () =>
      answers.filter((r) => r.status === 202).map((r) => r.body.task_id as string);
    for (let round = 0; round < 3 && !accepted().some((id) => named.includes(id)); round++) {
      const burst = await haltDuringBurst(round);
      named.push(...burst.named);
      answers.push(...burst.answers);
    }
    expect(named).toEqual(expect.arrayContaining(["bt-pending-elsewhere", "bt-running-elsewhere"]));
    // On a loaded machine a submission may be refused with 503 (a store's deadline passed): it
    // recorded nothing, so only the accepted ones are expected to end and be announced.
    const refused = answers.filter((r) => r.status !== 202);
    expect(refused.map((r) => r.status)).toEqual(refused.map(() => 503));
    const ours = accepted();
    expect(ours.length).toBeGreaterThan(0);
    const haltedHere = ours.filter((id) => named.includes(id));
    expect(haltedHere.length).toBeGreaterThan(0);
    // The runs accepted after the halt wait in the queue for a worker; once they ended, a graceful
    // stop waits for the runs it cancelled: none of them may write a result after all.
    await eventually("the runs not halted end", () => bed!.backtests(), allTerminal, 90_000);
    await bed.stop(p);
    const final = await bed.backtests();
    for (const r of final)
      expect([r.task_id, r.status]).toEqual([
        r.task_id,
        named.includes(r.task_id) ? "halted" : "success",
      ]);
    const trials = await bed.trials();
    expect([...trials.keys()].sort()).toEqual(
      final
        .filter((r) => r.status === "success")
        .map((r) => r.id)
        .sort(),
    );
    expect(await bed.announced()).toBe(ours.length - haltedHere.length);
  }, 180_000);

  it("POST /bots/halt-all halts and names the backtests too", async () => {
    bed = await testBed();
    const p = await bed.start();
    const bot = await createBot(p.url, "halt-all-bt");
    await bed.orphan(bot, "bt-a-pending", "pending", "elsewhere:7:bt-live", 0);
    await bed.orphan(bot, "bt-b-running", "running", "elsewhere:7:bt-live", 0);
    const res = await call(p.url, "POST", "/bots/halt-all", { reason: "platform drill" });
    expect(res.body).toMatchObject({ halted: 2, task_ids: ["bt-a-pending", "bt-b-running"] });
    expect((await bed.backtests()).map((r) => [r.task_id, r.status, r.error])).toEqual([
      ["bt-a-pending", "halted", "platform drill"],
      ["bt-b-running", "halted", "platform drill"],
    ]);
  }, 30_000);
});
