// How long the backtest queue takes to pick its next run when the bot already has a long history
// of finished backtests: the claim must look up each waiting bot, not scan what it ever ran.
// Usage: npx tsx bench/src/backtest/claim-history.ts [--history 100000] [--out FILE]
import { writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { startPlatform } from "@svc/all-in-one";
import { claimNextBacktest } from "@svc/bots/runtime";
import { loadConfig } from "@svc/lib/config";
import { withScratchDatabase } from "../identity/scratch-database.js";
import { machine } from "../machine.js";

const arg = (name: string, fallback: string) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1]! : fallback;
};
const HISTORIES = arg("history", "0,10000,100000").split(",").map(Number);
const OUT = arg(
  "out",
  fileURLToPath(new URL("../../results/backtest-claim-history.json", import.meta.url)),
);
const CLAIMS = 200;

async function measure(url: string) {
  // The platform makes the schema (its migrations) and a bot; then it is closed, so that no
  // worker of its own claims the rows this bench queues.
  const p = await startPlatform(
    loadConfig({ SVC_PORT: "0", SVC_LOG_LEVEL: "silent", SVC_DATABASE_URL: url }),
  );
  const made = await fetch(`${p.url}/bots`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      name: "claim",
      slug: "claim",
      kind: "trading",
      strategy: { family: "ma_crossover" },
    }),
  });
  const botId = ((await made.json()) as { id: string }).id;
  await p.close();
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) }).withSchema("bots");
  const figures: Record<string, unknown> = {};
  let had = 0;
  for (const history of HISTORIES) {
    await pool.query(
      `insert into bots.bot_deployments (id, bot_id, version, target, status, task_id, request, created_at, started_at, attempts)
       select gen_random_uuid(), $1, 1, 'backtest', 'success', 'hist-' || g, '{}'::jsonb,
         now() - make_interval(secs => g), now() - make_interval(secs => g), 1
       from generate_series($2::int, $3::int) g`,
      [botId, had + 1, history],
    );
    had = Math.max(had, history);
    await pool.query("analyze bots.bot_deployments");
    const ms: number[] = [];
    for (let i = 0; i < CLAIMS; i++) {
      const id = randomUUID();
      await pool.query(
        `insert into bots.bot_deployments (id, bot_id, version, target, status, task_id, request)
         values ($1, $2, 1, 'backtest', 'pending', $3, '{}'::jsonb)`,
        [id, botId, `queued-${id}`],
      );
      const t = performance.now();
      const row = await claimNextBacktest(db as never, { hostId: "bench", maxAttempts: 3 });
      ms.push(performance.now() - t);
      if (row?.id !== id) throw new Error("the claim took another row than the one queued");
      await pool.query("delete from bots.bot_deployments where id = $1", [id]);
    }
    ms.sort((a, b) => a - b);
    figures[`history_${history}`] = {
      claims: CLAIMS,
      p50_ms: Math.round(ms[Math.floor(CLAIMS / 2)]! * 100) / 100,
      p99_ms: Math.round(ms[Math.floor(CLAIMS * 0.99)]! * 100) / 100,
    };
  }
  await db.destroy();
  return figures;
}

const figures = await withScratchDatabase("bench_claim_history", measure);
const result = { machine: machine(), figures };
writeFileSync(OUT, JSON.stringify(result, null, 2) + "\n");
console.log(JSON.stringify(result, null, 2));
