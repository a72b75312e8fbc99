// bench/bots-list-pages: GET /bots through the gateway of the all-in-one platform on the real
// Postgres with 100,000 bots: the first page against the page holding the 100,000th bot (keyset
// pagination: goal, p50 within 1.5x of the first page's). The reference, in the same run: the
// same two pages with the (created_at, id) index dropped, which is the table scan and sort every
// list did before (issue 15 measured 4.0-5.7 ms of SQL at 10k rows). The bots are seeded straight
// into the bots table in one INSERT ... SELECT (pairs of bots share a created_at to the
// microsecond, so the id breaks ties as it must); one walk of every page finds the last page's
// token; then each run asks each page `--requests` times one at a time, first and last page
// alternating, and records the p50 of each; and the same two queries in SQL alone.
// Usage: npx tsx bench/src/bots/list-pages.ts [--bots 100000] [--runs 3] [--requests 200]
import { writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { sql, type Kysely } from "kysely";
import { startPlatform } from "@svc/all-in-one";
import { loadConfig } from "@svc/lib/config";
import { withScratchDatabase } from "../identity/scratch-database.js";
import { machine } from "../machine.js";

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const BOTS = arg("bots", 100_000);
const RUNS = arg("runs", 3);
const REQUESTS = arg("requests", 200);
/** The table-scan reference is slow by design: fewer requests give the same p50. */
const SCAN_REQUESTS = Math.max(20, Math.round(REQUESTS / 4));
const PAGE = 100;
const round2 = (x: number) => Math.round(x * 100) / 100;
const round3 = (x: number) => Math.round(x * 1000) / 1000;
const load = () => os.loadavg().map(round2);
const loadAtStart = load();

const p50 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)]!;
};
const stats = (xs: number[]) => ({
  min: round3(Math.min(...xs)),
  median: round3(p50(xs)),
  max: round3(Math.max(...xs)),
});

const result = await withScratchDatabase("bench_bots_list_pages", async (url) => {
  const running = await startPlatform(
    loadConfig({ SVC_PORT: "0", SVC_LOG_LEVEL: "silent", SVC_DATABASE_URL: url }),
  );
  try {
    return await measure(running.url, running.platform.db.db);
  } finally {
    await running.close();
  }
});

async function measure(base: string, db: Kysely<unknown>) {
  const seedStarted = performance.now();
  // Pairs share a created_at; ids are random, so order within a pair is the id's.
  await sql`insert into bots.bots (id, slug, name, kind, status, fleet, current_version, spec_hash, spec, created_by, created_at)
    select gen_random_uuid(), 'bench-' || g, 'bench ' || g, 'trading',
           (array['draft', 'active', 'archived'])[1 + g % 3],
           'fleet-' || (g % 10), 1, 'seeded', jsonb_build_object('name', 'bench ' || g), 'bench',
           timestamptz '2026-01-01' + (g / 2) * interval '1 millisecond'
    from generate_series(1, ${BOTS}) g`.execute(db);
  await sql`analyze bots.bots`.execute(db);
  const seedS = round2((performance.now() - seedStarted) / 1000);

  async function get(path: string) {
    const t = performance.now();
    const res = await fetch(`${base}${path}`);
    const text = await res.text();
    const ms = performance.now() - t;
    if (!res.ok) throw new Error(`GET ${path}: ${res.status} ${text.slice(0, 300)}`);
    return {
      ms,
      body: JSON.parse(text) as { items: Array<{ slug: string }>; next_page_token: string },
    };
  }

  // One walk of every page: the token of the page before the last, and a check that every bot
  // is listed once.
  const walkStarted = performance.now();
  let token = "";
  let lastToken = "";
  let listed = 0;
  const seen = new Set<string>();
  for (;;) {
    const q = new URLSearchParams({ limit: String(PAGE), ...(token ? { page_token: token } : {}) });
    const { body } = await get(`/bots?${q}`);
    for (const b of body.items) seen.add(b.slug);
    listed += body.items.length;
    if (!body.next_page_token) break;
    lastToken = body.next_page_token;
    token = body.next_page_token;
  }
  const walkS = round2((performance.now() - walkStarted) / 1000);
  if (listed !== BOTS || seen.size !== BOTS)
    throw new Error(`the walk listed ${listed} bots, ${seen.size} distinct, of ${BOTS}`);
  const firstPath = `/bots?limit=${PAGE}`;
  const lastPath = `/bots?${new URLSearchParams({ limit: String(PAGE), page_token: lastToken })}`;
  const lastPage = (await get(lastPath)).body;
  if (lastPage.items.at(-1)?.slug !== `bench-${BOTS}` || lastPage.next_page_token !== "")
    throw new Error("the last page does not hold the last bot");

  const plan = async () => {
    const { rows } = await sql<{ "QUERY PLAN": unknown }>`explain (format json)
      select * from bots.bots where (created_at, id) > (timestamptz '2026-01-01', '00000000-0000-0000-0000-000000000000'::uuid)
      order by created_at, id limit ${PAGE + 1}`.execute(db);
    const top = (
      rows[0]!["QUERY PLAN"] as Array<{ Plan: { "Node Type": string; Plans?: unknown[] } }>
    )[0]!.Plan;
    const child = (top.Plans?.[0] as { "Node Type"?: string; "Index Name"?: string }) ?? {};
    return `${top["Node Type"]} > ${child["Node Type"] ?? "?"}${child["Index Name"] ? ` (${child["Index Name"]})` : ""}`;
  };

  /** p50 of `n` requests of each page, alternating first and last. */
  async function pair(n: number) {
    const first: number[] = [];
    const last: number[] = [];
    for (let i = 0; i < 10; i++) await get(i % 2 ? firstPath : lastPath); // warm
    for (let i = 0; i < n; i++) {
      first.push((await get(firstPath)).ms);
      last.push((await get(lastPath)).ms);
    }
    return { first: p50(first), last: p50(last) };
  }

  // The same two queries in SQL alone (what the repository sends), without HTTP and the gateway:
  // the last page resumes after the keys of the bot 101st from the end.
  const anchor = (
    await sql<{ created_at: string; id: string }>`select created_at::text, id::text from bots.bots
      order by created_at desc, id desc offset ${PAGE} limit 1`.execute(db)
  ).rows[0]!;
  const firstSql = sql`select * from bots.bots order by created_at, id limit ${PAGE + 1}`;
  const lastSql = sql`select * from bots.bots
    where (created_at, id) > (cast(${anchor.created_at} as timestamptz), cast(${anchor.id} as uuid))
    order by created_at, id limit ${PAGE + 1}`;
  async function sqlPair(n: number) {
    const first: number[] = [];
    const last: number[] = [];
    for (let i = 0; i < n; i++) {
      let t = performance.now();
      await firstSql.execute(db);
      first.push(performance.now() - t);
      t = performance.now();
      const rows = (await lastSql.execute(db)).rows.length;
      last.push(performance.now() - t);
      if (rows !== PAGE) throw new Error(`the last page's query found ${rows} rows`);
    }
    return { first: p50(first), last: p50(last) };
  }

  const indexedPlan = await plan();
  const runs: Array<Record<string, number>> = [];
  let scanPlan = "";
  for (let r = 0; r < RUNS; r++) {
    const indexed = await pair(REQUESTS);
    const indexedSql = await sqlPair(REQUESTS);
    // The reference: the same routes with the index dropped (the list before keyset paging
    // scanned and sorted the whole table on every call), then the index back for the next run.
    await sql`drop index bots.bots_created_idx`.execute(db);
    scanPlan ||= await plan();
    const scan = await pair(SCAN_REQUESTS);
    const scanSql = await sqlPair(SCAN_REQUESTS);
    await sql`create index bots_created_idx on bots.bots (created_at, id)`.execute(db);
    runs.push({
      first_page_p50_ms: round2(indexed.first),
      last_page_p50_ms: round2(indexed.last),
      last_to_first: round2(indexed.last / indexed.first),
      table_scan_first_page_p50_ms: round2(scan.first),
      table_scan_last_page_p50_ms: round2(scan.last),
      table_scan_first_to_indexed_first: round2(scan.first / indexed.first),
      table_scan_last_to_indexed_last: round2(scan.last / indexed.last),
      sql_first_page_p50_ms: round3(indexedSql.first),
      sql_last_page_p50_ms: round3(indexedSql.last),
      sql_last_to_first: round2(indexedSql.last / indexedSql.first),
      sql_table_scan_first_page_p50_ms: round3(scanSql.first),
      sql_table_scan_last_page_p50_ms: round3(scanSql.last),
      sql_table_scan_first_to_indexed_first: round2(scanSql.first / indexedSql.first),
    });
    console.error(`run ${r + 1}:`, JSON.stringify(runs.at(-1)));
  }
  const col = (k: string) => stats(runs.map((x) => x[k]!));
  return {
    bench: "bots-list-pages",
    what: "GET /bots (limit 100) through the gateway of the all-in-one platform on the local Postgres: the first page and the page holding the last of the bots (its token from one walk of every page), p50 of sequential requests alternating the two; reference: the same two requests with the (created_at, id) index dropped, as every list ran before keyset pagination",
    database: "postgres (local, scratch database)",
    bots: BOTS,
    page_size: PAGE,
    requests_per_page_per_run: REQUESTS,
    table_scan_requests_per_page_per_run: SCAN_REQUESTS,
    seed_s: seedS,
    walk_every_page_s: walkS,
    walk_listed_each_bot_once: true,
    plan_with_index: indexedPlan,
    plan_without_index: scanPlan,
    runs,
    first_page_p50_ms: col("first_page_p50_ms"),
    last_page_p50_ms: col("last_page_p50_ms"),
    last_to_first: col("last_to_first"),
    goal_last_to_first_at_most: 1.5,
    table_scan_first_page_p50_ms: col("table_scan_first_page_p50_ms"),
    table_scan_last_page_p50_ms: col("table_scan_last_page_p50_ms"),
    table_scan_first_to_indexed_first: col("table_scan_first_to_indexed_first"),
    table_scan_last_to_indexed_last: col("table_scan_last_to_indexed_last"),
    sql_first_page_p50_ms: col("sql_first_page_p50_ms"),
    sql_last_page_p50_ms: col("sql_last_page_p50_ms"),
    sql_last_to_first: col("sql_last_to_first"),
    sql_table_scan_first_page_p50_ms: col("sql_table_scan_first_page_p50_ms"),
    sql_table_scan_last_page_p50_ms: col("sql_table_scan_last_page_p50_ms"),
    sql_table_scan_first_to_indexed_first: col("sql_table_scan_first_to_indexed_first"),
  };
}

const out = {
  ...result,
  machine: machine(),
  load_average_at_start: loadAtStart,
  load_average_at_end: load(),
};
const file = fileURLToPath(new URL("../../results/bots-list-pages.json", import.meta.url));
writeFileSync(file, `${JSON.stringify(out, null, 1)}\n`);
console.log(JSON.stringify(out, null, 1));
