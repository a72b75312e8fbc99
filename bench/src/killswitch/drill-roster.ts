// bench/killswitch-drill-roster: how long a drill's roster takes to read (what POST
// /kill-switch/drills waits for before it engages) on the all-in-one platform with N bots seeded
// straight into the bots table, one of them (the last listed) with a running paper session. The
// roster asks the bots service in-process, as all-in-one does (the router transport with the
// internal interceptors): ListRunningPaperBots, a page of up to 1000 running bots a call; the
// reference, in the same run, is the roster as it was before that RPC (per-bot-roster.ts:
// ListBots page by page, then each bot's deployments, 16 bots at a time). Runs alternate the
// two; wall and CPU time (this process: the platform and the roster), each run checked to find
// the session; load average.
// Usage: npx tsx bench/src/killswitch/drill-roster.ts [--bots 1200] [--runs 5] [--postgres]
import { writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { sql } from "kysely";
import { BotsService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { startPlatform } from "@svc/all-in-one";
import { drillRosterFrom } from "@svc/killswitch";
import { loadConfig } from "@svc/lib/config";
import { internalInterceptors } from "@svc/lib/server";
import { withScratchDatabase } from "../identity/scratch-database.js";
import { perBotRoster } from "./per-bot-roster.js";
import { machine } from "../machine.js";

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const BOTS = arg("bots", 1_200);
const RUNS = arg("runs", 5);
const POSTGRES = process.argv.includes("--postgres");
const round = (x: number) => Math.round(x);
const load = () => os.loadavg().map((x) => Math.round(x * 100) / 100);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const span = (xs: number[]) => ({
  min: round(Math.min(...xs)),
  median: round(median(xs)),
  max: round(Math.max(...xs)),
});

async function measure(databaseUrl?: string) {
  const config = loadConfig({
    SVC_PORT: "0",
    SVC_LOG_LEVEL: "silent",
    ...(databaseUrl ? { SVC_DATABASE_URL: databaseUrl } : { SVC_DATA_DIR: "memory://" }),
  });
  const running = await startPlatform(config);
  try {
    const db = running.platform.db.db;
    await sql`insert into bots.bots (id, slug, name, kind, status, fleet, current_version, spec_hash, spec, created_by, created_at)
      select gen_random_uuid(), 'bench-' || g, 'bench ' || g, 'trading', 'draft', null, 1, 'seeded',
             jsonb_build_object('name', 'bench ' || g), 'bench',
             timestamptz '2026-01-01' + g * interval '1 millisecond'
      from generate_series(1, ${BOTS}) g`.execute(db);
    await sql`insert into bots.bot_versions (bot_id, version, spec_hash, spec, created_by)
      select id, 1, 'seeded', spec, 'bench' from bots.bots where slug = ${`bench-${BOTS}`}`.execute(
      db,
    );
    // A session marked running on the last bot, held by a host that is not this process, so no
    // runner here picks it up: the roster reads it as the drill would.
    await sql`insert into bots.bot_deployments (id, bot_id, version, target, status, task_id, request, host, host_seen_at)
      select gen_random_uuid(), id, 1, 'paper', 'running', 'pt-bench', '{}', 'elsewhere:1:bench', now()
      from bots.bots where slug = ${`bench-${BOTS}`}`.execute(db);
    const bots = running.modules.find((m) => m.name === "bots")!;
    const client = createClient(
      BotsService,
      createRouterTransport(bots.routes, {
        router: { interceptors: internalInterceptors(running.platform.log, "killswitch") },
      }),
    );
    const variants = {
      running_paper_pages: drillRosterFrom(client, config.timeouts.dbMs),
      per_bot_16: perBotRoster(client, config.timeouts.dbMs, 16),
    };
    const figures: Record<string, { wall_ms: number[]; cpu_ms: number[] }> = {};
    for (let run = 0; run < RUNS; run++)
      for (const [name, roster] of run % 2
        ? Object.entries(variants).reverse()
        : Object.entries(variants)) {
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        const entries = await roster();
        const wall = performance.now() - t0;
        const cpu = process.cpuUsage(cpu0);
        if (entries.length !== 1 || entries[0]!.taskId !== "pt-bench")
          throw new Error(
            `${name}: the roster did not find the session: ${JSON.stringify(entries)}`,
          );
        (figures[name] ??= { wall_ms: [], cpu_ms: [] }).wall_ms.push(wall);
        figures[name].cpu_ms.push((cpu.user + cpu.system) / 1000);
      }
    return Object.fromEntries(
      Object.entries(figures).map(([k, v]) => [
        k,
        { wall_ms: span(v.wall_ms), cpu_ms: span(v.cpu_ms) },
      ]),
    );
  } finally {
    await running.close();
  }
}

const loadAtStart = load();
const result = POSTGRES
  ? await withScratchDatabase("bench_drill_roster", (url) => measure(url))
  : await measure();
const out = {
  bench: "killswitch-drill-roster",
  bots: BOTS + 0,
  database: POSTGRES ? "postgres" : "pglite",
  runs: RUNS,
  ...result,
  machine: machine(),
  load_average: { start: loadAtStart, end: load() },
};
console.log(JSON.stringify(out, null, 2));
writeFileSync(
  fileURLToPath(
    new URL(`../../results/killswitch-drill-roster-${out.database}.json`, import.meta.url),
  ),
  JSON.stringify(out, null, 2) + "\n",
);
