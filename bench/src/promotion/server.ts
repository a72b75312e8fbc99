// Child process of the promotion benchmark: the platform on a fresh database of the real
// Postgres server, with one bot version known to the gates. Its first line tells the parent
// where it listens and the SQL one create sends (traced at the pg client after a warm-up).
import { randomBytes } from "node:crypto";
import pg from "pg";
import { sql } from "kysely";
import { loadConfig } from "@svc/lib/config";
import { startPlatform } from "@svc/all-in-one";
import { statementsToJson, traceSql } from "./trace-sql.js";

const adminUrl = process.env.SVC_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const name = `svc_bench_${randomBytes(5).toString("hex")}`;
const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const url = new URL(adminUrl);
url.pathname = `/${name}`;
const running = await startPlatform(
  loadConfig({ SVC_PORT: "0", SVC_LOG_LEVEL: "silent", SVC_DATABASE_URL: url.toString() }),
);
const bot = (await (
  await fetch(`${running.url}/bots`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Bench", kind: "trading", fleet: "majors" }),
  })
).json()) as { spec_hash: string };
for (let i = 0; i < 400; i++) {
  const r = await sql<{
    n: number;
  }>`select count(*)::int as n from promotion.known_bot_versions`.execute(running.platform.db.db);
  if (r.rows[0]!.n > 0) break;
  await new Promise((res) => setTimeout(res, 25));
}

const create = async (requestId: string) => {
  const res = await fetch(`${running.url}/promotion/requests`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      request_id: requestId,
      kind: "strategy",
      artifact: { bot_ref: "bench", version: 1, version_hash: bot.spec_hash },
      validation: { verdict: "PASS" },
      risk: { decision: "APPROVE" },
    }),
  });
  if (res.status !== 201) throw new Error(`create answered ${res.status}: ${await res.text()}`);
};
for (let i = 0; i < 20; i++) await create(`bench-warm-${i}`);
// Five traces, the shortest kept: a relay's poll or a sweep may run beside any one of them.
let traced: { requestId: string; statements: Awaited<ReturnType<typeof traceSql>> } | undefined;
for (let i = 0; i < 5; i++) {
  const requestId = `bench-trace-${randomBytes(4).toString("hex")}`;
  const statements = await traceSql(() => create(requestId));
  if (!traced || statements.length < traced.statements.length) traced = { requestId, statements };
}
const { requestId: traceRequestId, statements } = traced!;

process.stdout.write(
  `${JSON.stringify({
    url: running.url,
    hash: bot.spec_hash,
    databaseUrl: url.toString(),
    traceRequestId,
    sql: statementsToJson(statements),
  })}\n`,
);
process.on("SIGTERM", async () => {
  await running.close();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
  process.exit(0);
});
