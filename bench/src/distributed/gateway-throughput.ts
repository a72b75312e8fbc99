// bench/distributed: authenticated GET /auth/whoami (identity) and GET /bots/{ref} (bots, one
// indexed query; a bot that does not exist, answered 404 bot_not_found) through the gateway of
// the distributed topology (every service its own process, gRPC between them) and of the
// all-in-one process (in-process hop), both on the same Postgres, NATS and Redis and the same
// OIDC provider and token, in one run: rounds alternate the two, ratios are taken within a round.
// Usage: npx tsx bench/src/distributed/gateway-throughput.ts [--seconds 5] [--connections 16] [--rounds 3]
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import pg from "pg";
import { signIn } from "@svc/dev-idp";
import { deleteTestStream } from "@svc/lib/bus/testing-streams";
import { machine } from "../machine.js";
import { startAllInOne, startDistributed, type Started } from "./topologies.js";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const seconds = arg("seconds", 5);
const connections = arg("connections", 16);
const rounds = arg("rounds", 3);
const adminUrl = process.env.SVC_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const tag = randomBytes(3).toString("hex");
const databases = [`svc_bench_dist_${tag}`, `svc_bench_aio_${tag}`];
const password = randomBytes(9).toString("base64url");
const API_AUDIENCE = "https://api.svc.local";
const CLAIMS = "https://svc.example/claims/";

async function admin(sql: string[]): Promise<void> {
  const c = new pg.Client({ connectionString: adminUrl, query_timeout: 30_000 });
  await c.connect();
  for (const s of sql) await c.query(s);
  await c.end();
}
const dbUrl = (name: string) =>
  Object.assign(new URL(adminUrl), { pathname: `/${name}` }).toString();

const loadAtStart = os.loadavg()[0]!;
await admin(databases.map((d) => `create database ${d}`));
const started: Started[] = [];
try {
  // Read-only routes under permissive enforcement: the all-in-one's identity never saw the
  // person's sign-in (the provider's post-login action calls the distributed gateway).
  const common = { SVC_AUTH_ENFORCE: "permissive", SVC_LOG_LEVEL: "warn" };
  const distributed = await startDistributed({
    ...common,
    SVC_DATABASE_URL: dbUrl(databases[0]!),
    SVC_PORT: "18480",
    SVC_NATS_NAMESPACE: `benchdist${tag}`,
    DEV_IDP_ALICE_PASSWORD: password,
  });
  started.push(distributed);
  const allInOne = await startAllInOne(
    {
      ...common,
      SVC_DATABASE_URL: dbUrl(databases[1]!),
      SVC_NATS_URL: process.env.SVC_NATS_URL ?? "nats://127.0.0.1:4222",
      SVC_NATS_NAMESPACE: `benchaio${tag}`,
      SVC_REDIS_URL: process.env.SVC_REDIS_URL ?? "redis://127.0.0.1:6379",
      SVC_AUTH_PROVIDER: "oidc",
      SVC_AUTH_OIDC_ISSUER: distributed.issuer!,
      SVC_AUTH_OIDC_AUDIENCE: API_AUDIENCE,
      SVC_AUTH_CLAIMS_NAMESPACE: CLAIMS,
    },
    18481,
  );
  started.push(allInOne);
  const { accessToken } = await signIn({
    issuer: distributed.issuer!,
    clientId: "svc-console",
    redirectUri: "http://127.0.0.1/auth/callback",
    username: "alice",
    password,
    resource: API_AUDIENCE,
  });
  const headers = { authorization: `Bearer ${accessToken}` };
  const ROUTES = { whoami: ["/auth/whoami", 200], get_bot: ["/bots/bench-absent", 404] } as const;
  type Route = keyof typeof ROUTES;
  const TARGETS = { all_in_one: allInOne.url, distributed: distributed.url };
  type Target = keyof typeof TARGETS;

  async function load(route: Route, target: Target, duration: number) {
    const [path, status] = ROUTES[route];
    let wrong = 0;
    const r = await autocannon({
      url: `${TARGETS[target]}${path}`,
      headers,
      duration,
      connections,
      setupClient: (c) => c.on("response", (s: number) => void (s !== status && wrong++)),
    } as autocannon.Options);
    if (wrong > 0 || r.errors > 0)
      throw new Error(`${route} ${target}: ${wrong} answers not ${status}, ${r.errors} errors`);
    return { requests_per_s: r.requests.average, p50_ms: r.latency.p50, p99_ms: r.latency.p99 };
  }
  const stats = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const r = (x: number) => Math.round(x * 1000) / 1000;
    return { min: r(s[0]!), median: r(s[Math.floor((s.length - 1) / 2)]!), max: r(s.at(-1)!) };
  };
  const names = Object.keys(TARGETS) as Target[];
  const runs: Record<Route, Record<Target, Awaited<ReturnType<typeof load>>[]>> = {
    whoami: { all_in_one: [], distributed: [] },
    get_bot: { all_in_one: [], distributed: [] },
  };
  for (const route of Object.keys(ROUTES) as Route[])
    for (const target of names) await load(route, target, 2); // warm-up
  for (let round = 0; round < rounds; round++)
    for (const route of Object.keys(ROUTES) as Route[]) {
      // Alternate which goes first, so a drift of the machine's load favours neither.
      const order = round % 2 === 0 ? names : [...names].reverse();
      for (const target of order) runs[route][target].push(await load(route, target, seconds));
    }
  const routes = Object.fromEntries(
    (Object.keys(ROUTES) as Route[]).map((route) => {
      const rps = (t: Target) => runs[route][t].map((x) => x.requests_per_s);
      return [
        route,
        {
          rest: ROUTES[route][0],
          answer: ROUTES[route][1],
          requests_per_s: Object.fromEntries(names.map((t) => [t, stats(rps(t))])),
          distributed_over_all_in_one: stats(
            rps("distributed").map((x, i) => x / rps("all_in_one")[i]!),
          ),
          p50_ms: Object.fromEntries(
            names.map((t) => [t, stats(runs[route][t].map((x) => x.p50_ms))]),
          ),
          p99_ms: Object.fromEntries(
            names.map((t) => [t, stats(runs[route][t].map((x) => x.p99_ms))]),
          ),
        },
      ];
    }),
  );
  const result = {
    benchmark:
      "authenticated GET /auth/whoami and GET /bots/{ref} through the gateway: distributed topology (npm run start:distributed, gRPC between processes) vs all-in-one (in-process hop), same run",
    machine: machine(),
    load_average: { at_start: loadAtStart, at_end: os.loadavg()[0]! },
    settings: {
      seconds_per_measure: seconds,
      rounds,
      connections,
      storage: "the machine's Postgres (a database each), NATS and Redis",
      auth: "OIDC RS256 token from the dev provider, SVC_AUTH_ENFORCE permissive (read-only routes)",
      note: "min/median/max over the rounds; the ratio is taken within a round. Both topologies share the machine's 2 cores: the distributed one runs 8 node processes on them, so this is what one machine gives, not what a cluster of pods would",
    },
    routes,
  };
  writeFileSync(
    fileURLToPath(new URL("../../results/distributed.json", import.meta.url)),
    `${JSON.stringify(result, null, 2)}\n`,
  );
  console.log(JSON.stringify(result, null, 2));
} finally {
  for (const s of started.reverse()) await s.stop();
  const natsUrl = process.env.SVC_NATS_URL ?? "nats://127.0.0.1:4222";
  for (const ns of [`benchdist${tag}`, `benchaio${tag}`])
    await deleteTestStream(natsUrl, `${ns.toUpperCase()}_EVENTS`).catch(() => undefined);
  await admin(
    databases
      .map((d) => `drop database if exists ${d} with (force)`)
      .concat(
        ["bots", "promotion", "killswitch", "compliance", "identity"].map(
          (s) => `drop role if exists ${databases[0]}_${s}`,
        ),
      ),
  );
}
