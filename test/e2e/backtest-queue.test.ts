import { sql, type Kysely } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import {
  BACKENDS,
  call,
  PLATFORM_START_TIMEOUT_MS,
  startTestPlatform,
} from "../support/test-platform.js";
import { eventually } from "../support/until.js";
import { failDeployment } from "../../services/bots/src/handlers/backtest-handlers.js";
import type { BotsDatabase } from "../../services/bots/src/store/bots.table.js";

// Many backtests at once: accepted work never fails because there was a lot of it. At most
// SVC_BACKTEST_WORKERS run at once per process, the rest wait in the durable queue in order and
// fairly between bots, a full queue refuses up front with Retry-After, and a queued run shows its
// place. (A process killed with queued runs: backtest-interrupted.test.ts.)

const DAY = 86_400_000;
const spec = (slug: string) => ({
  name: slug,
  slug,
  kind: "trading",
  strategy: { family: "ma_crossover", parameters: { fast: 10, slow: 40 } },
  engine: { initial_cash: 100000, fee_bps: 5, slippage_bps: 2, position_size: 1 },
  // Risk limits make a run event-driven, bar by bar: runs that last long enough to queue behind.
  risk: { max_order_units: 1_000_000 },
});
/** Synthetic daily bars, `days` of them. */
const range = (seed: number, days = 1_500) => ({
  data_source: `synthetic:${seed}`,
  start: "2000-01-01T00:00:00Z",
  end: new Date(Date.UTC(2000, 0, 1) + days * DAY).toISOString(),
});

interface Deployment {
  id: string;
  status: string;
  task_id: string;
  result_summary?: { error?: string } | null;
  progress?: { queue_position?: number };
}

async function deployments(p: RunningPlatform, bot: string): Promise<Deployment[]> {
  const res = await call(p.url, "GET", `/bots/${bot}/deployments?limit=100`);
  expect(res.status).toBe(200);
  return res.body.items;
}
const ended = (ds: Deployment[]) =>
  ds.length > 0 && ds.every((d) => ["success", "failed", "halted"].includes(d.status));
const positionOf = (d: { progress?: { queue_position?: number } }) =>
  d.progress?.queue_position ?? 0;

/** When each backtest started, as its row records it. */
async function startedAt(p: RunningPlatform): Promise<Map<string, number>> {
  const db = p.platform.db.db as Kysely<unknown>;
  const { rows } = await sql<{ id: string; started_at: Date | null }>`
    select id, started_at from bots.bot_deployments where target = 'backtest'`.execute(db);
  return new Map(rows.map((r) => [r.id, r.started_at ? new Date(r.started_at).getTime() : NaN]));
}
/** The backtests waiting in the queue now (pending, held by no process). */
async function queuedNow(p: RunningPlatform): Promise<Set<string>> {
  const db = p.platform.db.db as Kysely<unknown>;
  const { rows } = await sql<{ id: string }>`
    select id from bots.bot_deployments
    where target = 'backtest' and status = 'pending' and host is null`.execute(db);
  return new Set(rows.map((r) => r.id));
}

describe.each(BACKENDS)("many backtests at once (%s)", (backend) => {
  let p: RunningPlatform | undefined;
  afterEach(async () => {
    await p?.close();
    p = undefined;
  }, 60_000);

  const createBot = async (slug: string) => {
    const res = await call(p!.url, "POST", "/bots", spec(slug));
    expect(res.status).toBe(201);
  };

  it(
    "40 posted at once with 2 workers: every accepted one succeeds, none fails; queued ones show their place",
    async () => {
      p = await startTestPlatform(backend, { SVC_BACKTEST_WORKERS: "2" });
      for (const slug of ["burst-a", "burst-b"]) await createBot(slug);
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          call(p!.url, "POST", `/bots/burst-${i % 2 ? "b" : "a"}/backtest`, range(i)),
        ),
      );
      // Refused up front is allowed (the store had no connection in time); accepted then failed is not.
      const refused = answers.filter((r) => r.status !== 202);
      expect(refused.map((r) => [r.status, r.headers.has("retry-after")])).toEqual(
        refused.map((r) => [r.status === 429 ? 429 : 503, true]),
      );
      const accepted = answers.filter((r) => r.status === 202);
      expect(accepted.length).toBeGreaterThan(30);
      // Each accepted one was queued first, and its answer says where.
      expect(accepted.map((r) => positionOf(r.body) > 0)).toEqual(accepted.map(() => true));
      const all = await eventually(
        "every accepted backtest ends",
        async () => [...(await deployments(p!, "burst-a")), ...(await deployments(p!, "burst-b"))],
        ended,
        120_000,
      );
      expect(all).toHaveLength(accepted.length);
      const notSuccess = all.filter((d) => d.status !== "success");
      expect(notSuccess.map((d) => [d.task_id, d.status, d.result_summary?.error])).toEqual([]);
      // Once a worker took it, it has no place in the queue any more.
      expect(all.map(positionOf)).toEqual(all.map(() => 0));
    },
    PLATFORM_START_TIMEOUT_MS + 150_000,
  );

  it(
    "past SVC_BACKTEST_QUEUE_MAX a submission is refused up front, 429 with Retry-After, and records nothing",
    async () => {
      p = await startTestPlatform(backend, {
        SVC_BACKTEST_WORKERS: "1",
        SVC_BACKTEST_QUEUE_MAX: "3",
      });
      await createBot("bounded");
      const answers: Array<Awaited<ReturnType<typeof call>>> = [];
      // Batches of ten at once against one worker: the queue fills within a batch.
      for (let batch = 0; batch < 5 && !answers.some((r) => r.status === 429); batch++)
        answers.push(
          ...(await Promise.all(
            Array.from({ length: 10 }, (_, i) =>
              call(p!.url, "POST", "/bots/bounded/backtest", range(10 * batch + i, 20_000)),
            ),
          )),
        );
      const full = answers.filter((r) => r.status === 429);
      expect(full.length).toBeGreaterThan(0);
      for (const r of full) {
        expect([r.body.error.code, r.headers.get("retry-after")]).toEqual([
          "backtest_queue_full",
          "5",
        ]);
        expect(r.body.error.details).toMatchObject({ limit: "SVC_BACKTEST_QUEUE_MAX", queued: 3 });
      }
      const accepted = answers.filter((r) => r.status === 202);
      expect(accepted.length + full.length).toBe(answers.length);
      // Never more than the bound ahead of a run accepted.
      for (const r of accepted) expect(positionOf(r.body)).toBeLessThanOrEqual(3);
      const done = await eventually(
        "the accepted runs end",
        () => deployments(p!, "bounded"),
        ended,
        120_000,
      );
      // A refused submission left no row; every accepted one succeeded.
      expect(done.map((d) => d.id).sort()).toEqual(accepted.map((r) => r.body.id).sort());
      expect(done.map((d) => d.status)).toEqual(done.map(() => "success"));
    },
    PLATFORM_START_TIMEOUT_MS + 150_000,
  );

  it(
    "fair between bots: one run of bot B is not starved behind thirty of bot A; the queue shows each its place",
    async () => {
      p = await startTestPlatform(backend, { SVC_BACKTEST_WORKERS: "1" });
      await createBot("fair-a");
      await createBot("fair-b");
      const a = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          call(p!.url, "POST", "/bots/fair-a/backtest", range(i, 5_000)),
        ),
      );
      expect(a.map((r) => r.status)).toEqual(a.map(() => 202));
      const listed = await deployments(p, "fair-a");
      const b = await call(p.url, "POST", "/bots/fair-b/backtest", range(99, 5_000));
      expect(b.status).toBe(202);
      const aheadOfB = await queuedNow(p);
      aheadOfB.delete(b.body.id);
      // Enough of A's runs still waited when B's arrived, or this test would prove nothing.
      expect(aheadOfB.size).toBeGreaterThan(5);
      // While they wait, the listing gives each queued run its own place.
      const places = listed.map(positionOf).filter((n) => n > 0);
      expect(places.length).toBeGreaterThan(5);
      expect(new Set(places).size).toBe(places.length);
      expect(Math.max(...places)).toBeLessThanOrEqual(30);

      await eventually("every run ends", () => deployments(p!, "fair-a"), ended, 180_000);
      await eventually("bot B's run ends", () => deployments(p!, "fair-b"), ended, 30_000);
      const started = await startedAt(p);
      const bStart = started.get(b.body.id)!;
      // At most one of them (the oldest, had no run of A been going) ran before it.
      const before = [...aheadOfB].filter((id) => started.get(id)! < bStart);
      expect(before.length).toBeLessThanOrEqual(1);
    },
    PLATFORM_START_TIMEOUT_MS + 240_000,
  );

  it(
    "a run whose database call found no pool connection in time goes back in the queue, its start not counted, and then succeeds",
    async () => {
      p = await startTestPlatform(backend);
      await createBot("outage");
      const db = p.platform.db.db as Kysely<unknown>;
      // A run another live process holds (its lease is fresh), as it was when its write waited
      // past SVC_DB_TIMEOUT_MS for a connection of a pool that a burst had taken.
      const elsewhere = "elsewhere:7:bt-live";
      await sql`
        insert into bots.bot_deployments (id, bot_id, version, target, status, task_id, request, host, host_seen_at, attempts)
        select gen_random_uuid(), id, 1, 'backtest', 'running', 'bt-outage',
          ${JSON.stringify({ data_source: "synthetic:5", start: null, end: null })}, ${elsewhere}, now(), 1
        from bots.bots where slug = 'outage'`.execute(db);
      await failDeployment(
        db.withSchema("bots") as unknown as Kysely<BotsDatabase>,
        elsewhere,
        "bt-outage",
        new Error("timeout exceeded when trying to connect"),
      );
      const { rows } = await sql<{ status: string; host: string | null; attempts: number }>`
        select status, host, attempts from bots.bot_deployments where task_id = 'bt-outage'`.execute(
        db,
      );
      expect(rows).toEqual([{ status: "pending", host: null, attempts: 0 }]);
      const [done] = await eventually(
        "the run ends",
        () => deployments(p!, "outage"),
        ended,
        60_000,
      );
      expect([done!.status, done!.result_summary?.error]).toEqual(["success", undefined]);
    },
    PLATFORM_START_TIMEOUT_MS + 60_000,
  );
});
