// bench/promotion: created-and-gated promotion requests per second through the gateway, against
// the real Postgres (gates run, row and outbox event written in one transaction per request).
// Usage: npx tsx bench/src/promotion/create-requests.ts [--seconds 10] [--connections 16]
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { machine } from "../machine.js";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const seconds = arg("seconds", 10);
const connections = arg("connections", 16);

const child = spawn(
  process.execPath,
  ["--import", "tsx", fileURLToPath(new URL("./server.ts", import.meta.url))],
  { stdio: ["ignore", "pipe", "inherit"], env: process.env },
);
const { url, hash } = JSON.parse(
  await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout! }).once("line", resolve),
  ),
) as { url: string; hash: string };

let next = 0;
const body = () =>
  JSON.stringify({
    request_id: `bench-${process.pid}-${next++}`,
    kind: "strategy",
    artifact: { bot_ref: "bench", version: 1, version_hash: hash },
    validation: { verdict: "PASS" },
    risk: { decision: "APPROVE" },
  });
const run = (duration: number) =>
  autocannon({
    url: `${url}/promotion/requests`,
    method: "POST",
    headers: { "content-type": "application/json" },
    connections,
    duration,
    requests: [{ setupRequest: (req) => ({ ...req, body: body() }) }],
  });
await run(2);
const r = await run(seconds);
child.kill("SIGTERM");
if (r.non2xx > 0 || r.errors > 0)
  throw new Error(`${r.non2xx} non-2xx answers, ${r.errors} errors`);

const result = {
  benchmark: "POST /promotion/requests through the gateway: created and gated (pending), Postgres",
  machine: machine(),
  settings: { seconds, connections, storage: "Postgres 15 on 127.0.0.1", auth: "local" },
  requests_per_s: r.requests.average,
  p50_ms: r.latency.p50,
  p99_ms: r.latency.p99,
  requests: r.requests.total,
};
writeFileSync(
  fileURLToPath(new URL("../../results/promotion-create.json", import.meta.url)),
  `${JSON.stringify(result, null, 2)}\n`,
);
console.log(JSON.stringify(result, null, 2));
