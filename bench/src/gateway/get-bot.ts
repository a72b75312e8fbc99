// bench/gateway: authenticated GET /bots/{bot_ref} through the gateway against the same call
// straight to the bots service (Connect protocol, same process, same interceptors), same run.
// Usage: npx tsx bench/src/gateway/get-bot.ts [--seconds 10] [--connections 16]
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { createTokenVerifier } from "@svc/lib/auth";
import { freshMfaClaims, startTestIdp } from "@svc/lib/auth/testing";
import { authSettingsFrom } from "@svc/lib/server";
import { loadConfig } from "@svc/lib/config";
import { machine } from "../machine.js";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const seconds = arg("seconds", 10);
const connections = arg("connections", 16);

const child = spawn(
  process.execPath,
  ["--import", "tsx", fileURLToPath(new URL("./servers.ts", import.meta.url))],
  { stdio: ["ignore", "pipe", "inherit"] },
);
const first = await new Promise<string>((resolve) =>
  createInterface({ input: child.stdout! }).once("line", resolve),
);
const { gateway, direct, token } = JSON.parse(first) as {
  gateway: string;
  direct: string;
  token: string;
};
const auth = { authorization: `Bearer ${token}` };

async function load(name: string, opts: autocannon.Options) {
  await autocannon({ ...opts, duration: 2, connections }); // warm-up
  const r = await autocannon({ ...opts, duration: seconds, connections });
  if (r.non2xx > 0 || r.errors > 0)
    throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return {
    requests_per_s: r.requests.average,
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    requests: r.requests.total,
  };
}

const viaDirect = await load("direct", {
  url: `${direct}/svc.bots.v1.BotsService/GetBot`,
  method: "POST",
  headers: { ...auth, "content-type": "application/json" },
  body: '{"bot_ref":"bench-bot"}',
});
const viaGateway = await load("gateway", { url: `${gateway}/bots/bench-bot`, headers: auth });
// Latency one call at a time (no queueing), with sub-millisecond resolution.
async function sequential(call: () => Promise<Response>, n = 1_000) {
  for (let i = 0; i < 100; i++) await (await call()).arrayBuffer();
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await call();
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`status ${res.status}`);
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  const q = (p: number) => Math.round(ms[Math.floor(p * (ms.length - 1))]! * 1000) / 1000;
  return { p50_ms: q(0.5), p99_ms: q(0.99) };
}
const oneDirect = await sequential(() =>
  fetch(`${direct}/svc.bots.v1.BotsService/GetBot`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: '{"bot_ref":"bench-bot"}',
  }),
);
const oneGateway = await sequential(() => fetch(`${gateway}/bots/bench-bot`, { headers: auth }));
child.kill("SIGTERM");

// What verifying a token costs, with the verified-token cache off and on.
const idp = await startTestIdp();
const verifyToken = await idp.sign(freshMfaClaims("user|bench", ["read:bots"]));
const base = authSettingsFrom(
  loadConfig({
    SVC_AUTH_PROVIDER: "oidc",
    SVC_AUTH_OIDC_ISSUER: idp.issuer,
    SVC_AUTH_OIDC_AUDIENCE: idp.audience,
  }),
);
async function perVerify(cacheSize: number): Promise<number> {
  const verifier = createTokenVerifier({ ...base, tokenCacheSize: cacheSize });
  await verifier.verify(verifyToken, "user");
  const n = 3_000;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await verifier.verify(verifyToken, "user");
  return ((performance.now() - t0) / n) * 1000;
}
const uncachedUs = await perVerify(0);
const cachedUs = await perVerify(10_000);
await idp.stop();

const result = {
  benchmark:
    "authenticated GET /bots/{bot_ref}: gateway vs direct Connect call to the bots service",
  machine: machine(),
  settings: {
    seconds,
    connections,
    storage: "PGlite in memory",
    auth: "OIDC RS256 token, local JWKS",
  },
  direct: viaDirect,
  gateway: viaGateway,
  throughput_ratio:
    Math.round((viaGateway.requests_per_s / viaDirect.requests_per_s) * 1000) / 1000,
  added_p50_ms_under_load: viaGateway.p50_ms - viaDirect.p50_ms,
  one_at_a_time: {
    direct: oneDirect,
    gateway: oneGateway,
    added_p50_ms: Math.round((oneGateway.p50_ms - oneDirect.p50_ms) * 1000) / 1000,
  },
  token_verification_us: {
    uncached: Math.round(uncachedUs),
    cached: Math.round(cachedUs * 100) / 100,
  },
};
writeFileSync(
  fileURLToPath(new URL("../../results/gateway.json", import.meta.url)),
  `${JSON.stringify(result, null, 2)}\n`,
);
console.log(JSON.stringify(result, null, 2));
