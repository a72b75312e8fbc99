// bench/gateway: authenticated GET /auth/whoami and GET /bots/{bot_ref} through the all-in-one
// gateway (the in-process hop) against the same call straight to the service (Connect protocol,
// same process, same interceptors: the reference), and through a gateway over Connect's router
// transport (the hop before), in one run: rounds alternate the three, ratios are taken within a
// round. Usage: npx tsx bench/src/gateway/hop.ts [--seconds 5] [--connections 16] [--rounds 3]
//   [--profile DIR]  (the servers' process writes a V8 CPU profile into DIR: node --cpu-prof)
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import os from "node:os";
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
const seconds = arg("seconds", 5);
const connections = arg("connections", 16);
const rounds = arg("rounds", 3);
const profileAt = process.argv.indexOf("--profile");
const profileDir = profileAt > 0 ? process.argv[profileAt + 1] : undefined;

const loadAtStart = os.loadavg()[0]!;
const child = spawn(
  process.execPath,
  [
    ...(profileDir ? ["--cpu-prof", "--cpu-prof-dir", profileDir] : []),
    "--import",
    "tsx",
    fileURLToPath(new URL("./servers.ts", import.meta.url)),
  ],
  { stdio: ["ignore", "pipe", "inherit", "ipc"] },
);
const first = await new Promise<string>((resolve) =>
  createInterface({ input: child.stdout! }).once("line", resolve),
);
const urls = JSON.parse(first) as {
  gateway: string;
  direct: string;
  routerTransport: string;
  token: string;
};
const auth = { authorization: `Bearer ${urls.token}` };

type Target = "direct" | "in_process_hop" | "router_transport_hop";
const TARGETS: Target[] = ["direct", "in_process_hop", "router_transport_hop"];
const ROUTES = {
  whoami: {
    direct: { path: "/svc.identity.v1.IdentityService/WhoAmI", body: "{}" },
    rest: "/auth/whoami",
  },
  get_bot: {
    direct: { path: "/svc.bots.v1.BotsService/GetBot", body: '{"bot_ref":"bench-bot"}' },
    rest: "/bots/bench-bot",
  },
};
type Route = keyof typeof ROUTES;

function request(route: Route, target: Target): { url: string; init: RequestInit } {
  const r = ROUTES[route];
  if (target === "direct")
    return {
      url: `${urls.direct}${r.direct.path}`,
      init: {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: r.direct.body,
      },
    };
  const base = target === "in_process_hop" ? urls.gateway : urls.routerTransport;
  return { url: `${base}${r.rest}`, init: { headers: auth } };
}

/** The servers' process's CPU time so far, in microseconds (user + system). */
function serverCpuUs(): Promise<number> {
  return new Promise((resolve) => {
    child.once("message", (u: NodeJS.CpuUsage) => resolve(u.user + u.system));
    child.send("cpu");
  });
}

async function load(route: Route, target: Target, duration: number) {
  const { url, init } = request(route, target);
  const cpuBefore = await serverCpuUs();
  const r = await autocannon({
    url,
    method: (init.method ?? "GET") as "GET" | "POST",
    headers: init.headers as Record<string, string>,
    body: init.body as string | undefined,
    duration,
    connections,
  });
  const cpuUs = (await serverCpuUs()) - cpuBefore;
  if (r.non2xx > 0 || r.errors > 0)
    throw new Error(`${route} ${target}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return {
    requests_per_s: r.requests.average,
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    server_cpu_us_per_request: cpuUs / r.requests.total,
  };
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x * 1000) / 1000;
  return { min: r(s[0]!), median: r(s[Math.floor((s.length - 1) / 2)]!), max: r(s.at(-1)!) };
};

const perRound: Record<Route, Record<Target, Array<Awaited<ReturnType<typeof load>>>>> = {
  whoami: { direct: [], in_process_hop: [], router_transport_hop: [] },
  get_bot: { direct: [], in_process_hop: [], router_transport_hop: [] },
};
for (const route of Object.keys(ROUTES) as Route[])
  for (const target of TARGETS) await load(route, target, 2); // warm-up
for (let round = 0; round < rounds; round++) {
  for (const route of Object.keys(ROUTES) as Route[]) {
    // Rotate the order each round, so a drift of the machine's load favours no target.
    const order = TARGETS.map((_, i) => TARGETS[(i + round) % TARGETS.length]!);
    for (const target of order) perRound[route][target].push(await load(route, target, seconds));
  }
}

// Latency one call at a time (no queueing), with sub-millisecond resolution.
async function sequential(route: Route, target: Target, n = 500) {
  const { url, init } = request(route, target);
  for (let i = 0; i < 50; i++) await (await fetch(url, init)).arrayBuffer();
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await fetch(url, init);
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${route} ${target}: status ${res.status}`);
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  const q = (p: number) => Math.round(ms[Math.floor(p * (ms.length - 1))]! * 1000) / 1000;
  return { p50_ms: q(0.5), p99_ms: q(0.99) };
}
const oneAtATime: Record<string, Record<string, { p50_ms: number; p99_ms: number }>> = {};
for (const route of Object.keys(ROUTES) as Route[]) {
  oneAtATime[route] = {};
  for (const target of TARGETS) oneAtATime[route][target] = await sequential(route, target);
}
child.kill("SIGTERM");
await new Promise((resolve) => child.once("exit", resolve));
const loadAtEnd = os.loadavg()[0]!;

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

const routes: Record<string, unknown> = {};
for (const route of Object.keys(ROUTES) as Route[]) {
  const rps = (t: Target) => perRound[route][t].map((r) => r.requests_per_s);
  const ratio = (t: Target) => rps(t).map((x, i) => x / rps("direct")[i]!);
  const cpu = (t: Target) => perRound[route][t].map((r) => r.server_cpu_us_per_request);
  // Direct's CPU per request over the hop's: the throughput ratio of a server that has the CPU.
  const cpuRatio = (t: Target) => cpu(t).map((x, i) => cpu("direct")[i]! / x);
  routes[route] = {
    rest: ROUTES[route].rest,
    direct_rpc: ROUTES[route].direct.path,
    requests_per_s: Object.fromEntries(TARGETS.map((t) => [t, stats(rps(t))])),
    ratio_to_direct: {
      in_process_hop: stats(ratio("in_process_hop")),
      router_transport_hop: stats(ratio("router_transport_hop")),
    },
    server_cpu_us_per_request: Object.fromEntries(TARGETS.map((t) => [t, stats(cpu(t))])),
    cpu_ratio_to_direct: {
      in_process_hop: stats(cpuRatio("in_process_hop")),
      router_transport_hop: stats(cpuRatio("router_transport_hop")),
    },
    p50_ms_under_load: Object.fromEntries(
      TARGETS.map((t) => [t, stats(perRound[route][t].map((r) => r.p50_ms))]),
    ),
    p99_ms_under_load: Object.fromEntries(
      TARGETS.map((t) => [t, stats(perRound[route][t].map((r) => r.p99_ms))]),
    ),
    one_at_a_time: oneAtATime[route],
  };
}

const result = {
  benchmark:
    "authenticated GET /auth/whoami and GET /bots/{bot_ref}: all-in-one gateway (in-process hop) and a gateway over Connect's router transport (the hop before) vs a direct Connect call to the service",
  machine: machine(),
  load_average: { at_start: loadAtStart, at_end: loadAtEnd },
  settings: {
    seconds_per_measure: seconds,
    rounds,
    connections,
    storage: "PGlite in memory",
    auth: "OIDC RS256 token, local JWKS, SVC_AUTH_ENFORCE strict (membership cached)",
    note: "min/median/max over the rounds; ratios are taken within a round (the three targets back to back, order rotated each round); cpu_ratio_to_direct is the direct call's server CPU per request over the target's (the servers' process only, all three in one process)",
  },
  routes,
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
