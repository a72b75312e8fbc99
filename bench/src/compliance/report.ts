// bench/compliance-report: how long the platform takes to generate the annual validation report
// over 1,000 bots with a year of evidence, through the gateway (GET /risk/validation-report), and
// one bot's report (GET /bots/{bot_ref}/risk/validation-report). The bots are created through the
// API; their year of evidence is seeded into the owners' tables in the shape their repositories
// write (as bench/identity seeds memberships): per bot, a conformance and a stress run each
// quarter (the cases and stress figures copied from one real run of each through the API), and
// four quarterly drills with every bot's judged result. Every round must answer the same bytes.
// Usage: npx tsx bench/src/compliance/report.ts [--bots 1000] [--rounds 5]
import { createHash, randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import { startPlatform } from "@svc/all-in-one";
import { loadConfig } from "@svc/lib/config";
import { machine } from "../machine.js";

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const loadAtStart = os.loadavg().map((l) => Math.round(l * 100) / 100);
const BOTS = arg("bots", 1_000);
const ROUNDS = arg("rounds", 5);
const YEAR = new Date().getUTCFullYear();
/** A run and a drill each quarter, all before today so they are in the year so far. */
const QUARTERS = [0, 1, 2, 3].map((q) => {
  const at = new Date(Date.UTC(YEAR, q * 3, 15));
  return at.getTime() < Date.now() ? at : new Date(Date.UTC(YEAR, 0, 2 + q));
});
const LIMITS = {
  max_order_units: 5,
  max_order_notional: 200_000,
  price_collar_pct: 5,
  max_orders_per_window: 10,
  throttle_window_s: 60,
  duplicate_window_s: 30,
  restricted_symbols: ["XYZ"],
  capital_limit: 10_000_000,
  credit_limit: 1_000_000,
};
const spec = (slug: string) => ({
  name: slug,
  slug,
  kind: "trading",
  universe: { symbols: ["BTC-USD"] },
  strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
  engine: { initial_cash: 100_000, position_size: 0.5 },
  risk: LIMITS,
});

const running = await startPlatform(
  loadConfig({
    SVC_PORT: "0",
    SVC_DATA_DIR: process.env.SVC_DATABASE_URL ? "" : "memory://",
    SVC_LOG_LEVEL: "silent",
    ...(process.env.SVC_DATABASE_URL ? { SVC_DATABASE_URL: process.env.SVC_DATABASE_URL } : {}),
  }),
);
const base = running.url;
const db = running.platform.db.db;

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
  return { text, headers: res.headers, json: () => JSON.parse(text) as Record<string, unknown> };
}

/** One real run through the API, whose stored results every seeded run copies. */
async function realRun(what: "conformance" | "stress") {
  const started = (await api("POST", `/bots/template/${what}`, {})).json();
  for (;;) {
    const run = (
      await api("GET", `/bots/template/compliance-runs/${String(started.run_id)}`)
    ).json();
    if (run.status === "completed") break;
    if (run.status === "failed") throw new Error(`the template ${what} run failed`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const { rows } = await sql<{
    cases: unknown;
    stress: unknown;
    passed: boolean;
    cases_done: number;
    cases_total: number;
  }>`select cases, stress, passed, cases_done, cases_total from bots.compliance_runs
     where id = ${String(started.run_id)}`.execute(db);
  const row = rows[0]!;
  // Seeded runs must be what the template's run was: the whole suite of today, passing.
  if (!row.passed) throw new Error(`the template ${what} run did not pass: the seed would fail`);
  return {
    cases: JSON.stringify(row.cases),
    stress: row.stress ? JSON.stringify(row.stress) : null,
    done: row.cases_done,
    total: row.cases_total,
  };
}

const seedStarted = performance.now();
await api("POST", "/bots", spec("template"));
const conformance = await realRun("conformance");
const stress = await realRun("stress");

const bots: Array<{ id: string; slug: string; hash: string }> = [];
for (let i = 0; i < BOTS; i += 8)
  bots.push(
    ...(await Promise.all(
      Array.from({ length: Math.min(8, BOTS - i) }, async (_, k) => {
        const b = (
          await api("POST", "/bots", spec(`bench-${String(i + k).padStart(4, "0")}`))
        ).json();
        return { id: String(b.id), slug: String(b.slug), hash: String(b.spec_hash) };
      }),
    )),
  );

// Runs: the columns insertComplianceRun and finishComplianceRun write, with the quarter's times.
for (let i = 0; i < bots.length; i += 100) {
  const rows = bots.slice(i, i + 100).flatMap((b) =>
    QUARTERS.flatMap((at) =>
      (["conformance", "stress"] as const).map((kind) => {
        const id = randomUUID();
        const r = kind === "conformance" ? conformance : stress;
        return sql`(${id}, ${b.id}, ${kind}, 1, ${b.hash}, ${`${kind === "conformance" ? "cf" : "st"}-${id.slice(0, 8)}`},
          'completed', true, ${kind === "stress" ? 2 : 0}, ${r.cases}::jsonb, ${r.stress}::jsonb, ${r.done}, ${r.total}, 'bench',
          ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz, ${at.toISOString()}::timestamptz)`;
      }),
    ),
  );
  await sql`insert into bots.compliance_runs (id, bot_id, kind, version, version_hash, task_id, status, passed,
    peak_multiple, cases, stress, cases_done, cases_total, requested_by, created_at, started_at, finished_at)
    values ${sql.join(rows)}`.execute(db);
}
// Drills: the row insertDrill writes once judged, every bot passing its bounds.
for (const at of QUARTERS) {
  const perBot = bots.map((b) => ({
    task_id: `paper-${b.slug}`,
    bot_id: b.id,
    bot_slug: b.slug,
    draining_ms: 800,
    stopped_ms: 2_000,
    restarted: true,
    high_frequency: false,
    high_frequency_basis: "bars of 1d, one minute or longer",
    draining_bound_ms: 10_000,
    stopped_bound_ms: 300_000,
    verdict: "pass",
    misses: [],
  }));
  const figures = {
    bots: bots.length,
    draining_p50_ms: 800,
    draining_max_ms: 800,
    stopped_max_ms: 2_000,
    all_restarted: true,
    per_bot: perBot,
  };
  await sql`insert into killswitch.drills (id, started_at, started_by, reason, result, state, verdict, ended_at)
    values (${randomUUID()}, ${at.toISOString()}::timestamptz, 'bench', 'quarterly drill',
            ${JSON.stringify(figures)}, 'finished', 'pass', ${new Date(at.getTime() + 5_000).toISOString()}::timestamptz)`.execute(
    db,
  );
}
const seedS = (performance.now() - seedStarted) / 1_000;

async function timed(path: string, rounds: number) {
  const ms: number[] = [];
  const hashes = new Set<string>();
  let bytes = 0;
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    const res = await api("GET", path);
    ms.push(performance.now() - t);
    const sha = createHash("sha256").update(res.text, "utf8").digest("hex");
    if (res.headers.get("x-report-sha256") !== sha)
      throw new Error("X-Report-Sha256 does not match the body");
    hashes.add(sha);
    bytes = Buffer.byteLength(res.text);
  }
  if (hashes.size !== 1)
    throw new Error(`${path}: ${hashes.size} different reports from the same records`);
  const sorted = [...ms].sort((a, b) => a - b);
  const round1 = (x: number) => Math.round(x);
  return {
    path,
    rounds,
    ms_each: ms.map(round1),
    ms_median: round1(sorted[Math.floor(sorted.length / 2)]!),
    ms_min: round1(sorted[0]!),
    ms_max: round1(sorted.at(-1)!),
    bytes,
    byte_identical: true,
  };
}

const platform = await timed(`/risk/validation-report?year=${YEAR}`, ROUNDS);
// The report must cover every bot (the template and the seeded ones), none left out.
const covered = Number(
  /\n {2}scope:\n(?: {4}.*\n)*? {4}bots: (\d+)\n/.exec(
    (await api("GET", `/risk/validation-report?year=${YEAR}`)).text,
  )?.[1],
);
if (covered !== bots.length + 1)
  throw new Error(`the platform report covers ${covered} bots of ${bots.length + 1}`);
const oneBot = await timed(`/bots/bench-0000/risk/validation-report?year=${YEAR}`, ROUNDS * 4);
// A seeded bot's evidence must pass what it rests on: a stale seed (an older suite, a run
// without thresholds) shows here as fail or not evidenced, and the figures would time a
// report nobody files.
const verdicts: Record<string, number> = {};
for (const m of (
  await api("GET", `/bots/bench-0000/risk/validation-report?year=${YEAR}`)
).text.matchAll(/\bverdict: (\w+)/g))
  verdicts[m[1]!] = (verdicts[m[1]!] ?? 0) + 1;
if (verdicts.fail)
  throw new Error(`a seeded bot's report has failing verdicts: ${JSON.stringify(verdicts)}`);
const result = {
  bench: "compliance-report",
  what: "GET /risk/validation-report over every bot, and one bot's report, through the gateway of the all-in-one platform",
  database: process.env.SVC_DATABASE_URL ? "postgres" : "pglite (in memory)",
  bots: bots.length + 1,
  bots_in_platform_report: covered,
  evidence_per_bot: {
    conformance_runs: QUARTERS.length,
    stress_runs: QUARTERS.length,
    drills: QUARTERS.length,
    cases_per_conformance_run: JSON.parse(conformance.cases).length as number,
  },
  seeded_bot_verdicts: verdicts,
  seed_s: Math.round(seedS * 10) / 10,
  platform_report: platform,
  bot_report: oneBot,
  machine: machine(),
  load_average_at_start: loadAtStart,
  load_average_at_end: os.loadavg().map((l) => Math.round(l * 100) / 100),
};
console.log(JSON.stringify(result, null, 2));
writeFileSync(
  fileURLToPath(new URL("../../results/compliance-report.json", import.meta.url)),
  `${JSON.stringify(result, null, 2)}\n`,
);
await running.close();
