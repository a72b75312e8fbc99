// bench/promotion: created-and-gated promotion requests per second through the gateway, against
// the real Postgres (gates run, row and outbox event written in one transaction per request),
// beside its reference in the same run: the SQL one create sends, sent straight with
// node-postgres. Two references: the SQL the create sends today (traced at the start) and the
// SQL it sent when issue 15 measured 0.20 (issue-15-create-sql.json), so a change that saves
// round trips shows against both. Rounds alternate platform and references; min/median/max.
// Usage: npx tsx bench/src/promotion/create-requests.ts [--seconds 10] [--connections 16]
//        [--rounds 3] [--cpu-prof DIR] [--save-sql FILE]
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { machine } from "../machine.js";
import { replaySql } from "./replay-sql.js";
import { revive, statementsToJson, type TracedStatement } from "./trace-sql.js";

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const seconds = Number(arg("seconds") ?? 10);
const connections = Number(arg("connections") ?? 16);
const rounds = Number(arg("rounds") ?? 3);
const cpuProf = arg("cpu-prof");
const POOL_MAX = 10; // the platform's pool (lib/src/db/open-database.ts)
const loadStart = os.loadavg();

const child = spawn(
  process.execPath,
  [
    ...(cpuProf ? ["--cpu-prof", `--cpu-prof-dir=${cpuProf}`] : []),
    "--import",
    "tsx",
    fileURLToPath(new URL("./server.ts", import.meta.url)),
  ],
  { stdio: ["ignore", "pipe", "inherit"], env: process.env },
);
// The child holds a database of its own: it must never outlive a failed run.
const stopChild = async () => {
  if (child.exitCode !== null) return;
  child.kill("SIGTERM");
  await new Promise((resolve) => child.once("exit", resolve));
};
// On a failed run too: the child drops its database when told to stop.
process.on("exit", () => child.kill("SIGTERM"));
const started = JSON.parse(
  await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout! }).once("line", resolve),
  ),
) as { url: string; hash: string; databaseUrl: string; traceRequestId: string; sql: string };
const { url, hash, databaseUrl } = started;
const today = { requestId: started.traceRequestId, statements: revive(started.sql) };
const saveSql = arg("save-sql");
if (saveSql)
  writeFileSync(
    saveSql,
    `{"requestId":${JSON.stringify(today.requestId)},"statements":${statementsToJson(today.statements)}}\n`,
  );
const issue15 = JSON.parse(
  readFileSync(new URL("./issue-15-create-sql.json", import.meta.url), "utf8"),
) as { requestId: string; statements: unknown[] };
const atIssue = {
  requestId: issue15.requestId,
  statements: revive(JSON.stringify(issue15.statements)),
};

let next = 0;
const body = () =>
  JSON.stringify({
    request_id: `bench-${process.pid}-${next++}`,
    kind: "strategy",
    artifact: { bot_ref: "bench", version: 1, version_hash: hash },
    validation: { verdict: "PASS" },
    risk: { decision: "APPROVE" },
  });
const platform = async (duration: number) => {
  const r = await autocannon({
    url: `${url}/promotion/requests`,
    method: "POST",
    headers: { "content-type": "application/json" },
    connections,
    duration,
    requests: [{ setupRequest: (req) => ({ ...req, body: body() }) }],
  });
  if (r.non2xx > 0 || r.errors > 0)
    throw new Error(`${r.non2xx} non-2xx answers, ${r.errors} errors`);
  return {
    requests_per_s: r.requests.average,
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    requests: r.requests.total,
  };
};
const straight = (ref: { requestId: string; statements: TracedStatement[] }, duration: number) =>
  replaySql({ url: databaseUrl, ...ref, connections, seconds: duration, poolMax: POOL_MAX });

await platform(2);
await straight(today, 2);
await straight(atIssue, 2);
type Run = Awaited<ReturnType<typeof platform>>;
const runs: Record<"platform" | "sql_today" | "sql_at_issue_15", Run[]> = {
  platform: [],
  sql_today: [],
  sql_at_issue_15: [],
};
for (let i = 0; i < rounds; i++) {
  runs.platform.push(await platform(seconds));
  runs.sql_today.push(await straight(today, seconds));
  runs.sql_at_issue_15.push(await straight(atIssue, seconds));
}
await stopChild();
const loadEnd = os.loadavg();

const spread = (rs: Run[]) => {
  const v = rs.map((r) => r.requests_per_s).sort((a, b) => a - b);
  return { min: v[0]!, median: v[Math.floor(v.length / 2)]!, max: v[v.length - 1]! };
};
const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;
const summary = {
  platform: spread(runs.platform),
  sql_today: spread(runs.sql_today),
  sql_at_issue_15: spread(runs.sql_at_issue_15),
};
const round2 = (xs: number[]) => xs.map((x) => Math.round(x * 100) / 100);
const result = {
  benchmark:
    "POST /promotion/requests through the gateway: created and gated (pending), Postgres; beside the same SQL sent straight with node-postgres",
  machine: machine(),
  load_average: { start: round2(loadStart), end: round2(loadEnd) },
  settings: {
    seconds,
    connections,
    rounds,
    pool_max: POOL_MAX,
    storage: "Postgres 15 on 127.0.0.1",
    auth: "local",
  },
  requests_per_s: summary,
  ratio_to_sql_at_issue_15: ratio(summary.platform.median, summary.sql_at_issue_15.median),
  ratio_to_sql_today: ratio(summary.platform.median, summary.sql_today.median),
  statements_per_create: { today: today.statements.length, at_issue_15: atIssue.statements.length },
  sql_today: today.statements.map((s) => s.text),
  runs,
};
writeFileSync(
  fileURLToPath(new URL("../../results/promotion-create.json", import.meta.url)),
  `${JSON.stringify(result, null, 2)}\n`,
);
console.log(JSON.stringify(result, null, 2));
