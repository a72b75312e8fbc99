// bench/console: how fast the operator console's bots page shows 1,000 bots, in Debian's
// chromium driven by playwright-core against an all-in-one platform in this process (PGlite in
// memory), and how big the console is gzipped (goal: under 150 kB for the whole console).
// Per round, a fresh browser context (nothing cached) loads / and records, from the page's own
// clock: first paint, first contentful paint, the bots table rendered (the first page of 50 rows
// of the 1,000), and the visible rows' phase and kill-switch state filled in (they come with the
// page since GET /bots?include_runtime=true; before, one GET /bots/{id} per row, six at a time).
// A second load in the same context shows the page with the hashed assets cached.
// Usage: npx tsx bench/src/console/first-paint.ts [--bots 1000] [--rounds 10]
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { chromium, type BrowserContext } from "playwright-core";
import { startPlatform } from "@svc/all-in-one";
import { loadConfig } from "@svc/lib/config";
import { machine } from "../machine.js";

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const load = () => os.loadavg().map((l) => Math.round(l * 100) / 100);
const loadAtStart = load();
const BOTS = arg("bots", 1_000);
const ROUNDS = arg("rounds", 10);
const repo = fileURLToPath(new URL("../../../", import.meta.url));
const dist = join(repo, "console", "dist");
const CHROMIUM = [process.env.SVC_TEST_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"]
  .filter((p): p is string => !!p)
  .find((p) => existsSync(p));
if (!CHROMIUM)
  throw new Error("no chromium: apt-get install -y chromium (or set SVC_TEST_CHROMIUM)");

const built = spawnSync(process.execPath, ["console/scripts/ensure-build.mjs", "--force"], {
  cwd: repo,
  encoding: "utf8",
});
if (built.status !== 0) throw new Error(`console build failed: ${built.stderr}`);

/** Every file of the build, raw and gzipped at level 9 (what the gateway serves). */
const files = (readdirSync(dist, { recursive: true }) as string[])
  .filter((f) => statSync(join(dist, f)).isFile())
  .map((f) => {
    const body = readFileSync(join(dist, f));
    return { file: f, bytes: body.length, gzip_bytes: gzipSync(body, { level: 9 }).length };
  });
const bundle = {
  files,
  bytes: files.reduce((s, f) => s + f.bytes, 0),
  gzip_bytes: files.reduce((s, f) => s + f.gzip_bytes, 0),
  goal_gzip_bytes: 150_000,
};

const running = await startPlatform(
  loadConfig({ SVC_PORT: "0", SVC_DATA_DIR: "memory://", SVC_LOG_LEVEL: "silent" }),
);
const base = running.url;
const seedStart = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    for (let i = next++; i < BOTS; i = next++) {
      const slug = `bench-bot-${String(i).padStart(4, "0")}`;
      const res = await fetch(`${base}/bots`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          name: `Bench bot ${i}`,
          slug,
          kind: "trading",
          fleet: `fleet-${i % 10}`,
          strategy: { family: "ma_crossover", parameters: { fast: 3, slow: 8 } },
        }),
      });
      if (res.status !== 201)
        throw new Error(`POST /bots ${slug}: ${res.status} ${await res.text()}`);
    }
  }),
);
const seedMs = performance.now() - seedStart;

// Recorded by the page itself (performance.now(), from navigation start), not by polling.
const MARKS = `
  window.__marks = {};
  const check = () => {
    const rows = document.querySelectorAll("#bots-table tbody tr");
    const m = window.__marks;
    if (m.table === undefined && rows.length >= 50) m.table = performance.now();
    if (m.details === undefined && rows.length >= 50 &&
        ![...rows].some((r) => r.textContent.includes("…"))) m.details = performance.now();
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, characterData: true });
`;

interface Round {
  first_paint_ms: number;
  first_contentful_paint_ms: number;
  table_ms: number;
  details_ms: number;
  transferred_bytes: number;
}

async function loadOnce(context: BrowserContext): Promise<Round> {
  const page = await context.newPage();
  await page.goto(`${base}/`);
  // Asked over the DevTools protocol (page.waitForFunction evals in the page, which its CSP
  // refuses); the marks were taken by the page, so how often we ask changes no figure.
  const deadline = Date.now() + 60_000;
  while (!(await page.evaluate("window.__marks.details !== undefined"))) {
    if (Date.now() > deadline) throw new Error("the bots table did not fill within 60 s");
    await new Promise((r) => setTimeout(r, 20));
  }
  const r = (await page.evaluate(`(() => {
    const paint = Object.fromEntries(performance.getEntriesByType("paint").map((e) => [e.name, e.startTime]));
    const res = performance.getEntriesByType("resource").concat(performance.getEntriesByType("navigation"));
    return {
      first_paint_ms: paint["first-paint"],
      first_contentful_paint_ms: paint["first-contentful-paint"],
      table_ms: window.__marks.table,
      details_ms: window.__marks.details,
      transferred_bytes: res.reduce((s, e) => s + (e.transferSize || 0), 0),
    };
  })()`)) as Round;
  await page.close();
  return r;
}

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
const cold: Round[] = [];
const warm: Round[] = [];
// One unrecorded load: the platform's first requests warm its caches and JIT.
{
  const c = await browser.newContext();
  await c.addInitScript(MARKS);
  await loadOnce(c);
  await c.close();
}
for (let i = 0; i < ROUNDS; i++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(MARKS);
  cold.push(await loadOnce(context));
  warm.push(await loadOnce(context));
  await context.close();
}
await browser.close();
await running.close();

const round1 = (v: number) => Math.round(v * 10) / 10;
const summary = (rounds: Round[]) => {
  const stat = (key: keyof Round) => {
    const v = rounds.map((r) => r[key]).sort((a, b) => a - b);
    return { p50: round1(v[Math.floor(v.length / 2)]!), max: round1(v[v.length - 1]!) };
  };
  return {
    first_paint_ms: stat("first_paint_ms"),
    first_contentful_paint_ms: stat("first_contentful_paint_ms"),
    bots_table_rendered_ms: stat("table_ms"),
    visible_rows_detailed_ms: stat("details_ms"),
    transferred_bytes: stat("transferred_bytes"),
  };
};
const versionOf = spawnSync(CHROMIUM, ["--version"], { encoding: "utf8" }).stdout.trim();
const result = {
  benchmark: `operator console: the bots page with ${BOTS.toLocaleString("en")} bots, first paint to table, and the bundle gzipped`,
  machine: { ...machine(), nproc: os.availableParallelism() },
  load_average: { at_start: loadAtStart, at_end: load() },
  settings: {
    bots: BOTS,
    rounds: ROUNDS,
    browser: versionOf,
    viewport: "1280x900",
    storage: "PGlite in memory, all-in-one in the bench process",
    rows_per_page: 50,
    seed_ms: Math.round(seedMs),
  },
  bundle,
  cold_cache: summary(cold),
  warm_cache: summary(warm),
};
const out = fileURLToPath(new URL("../../results/console.json", import.meta.url));
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(JSON.stringify(result, null, 2));
