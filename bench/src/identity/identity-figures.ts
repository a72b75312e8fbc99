// bench/identity: (1) authenticated requests per second through the gateway under OIDC with
// membership enforcement (SVC_AUTH_ENFORCE=strict) cached and cold, against the same route and
// tokens with the membership check out of the way, same process, rounds alternated; (2) audit rows
// the identity service appends to the hash chain per second, PGlite and Postgres, chain verified.
// Usage: npm run -w bench identity -- [--seconds 1.5] [--rounds 4] [--fresh 600] [--events 2000]
//        [--connections 16] [--only membership|audit]
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { machine } from "../machine.js";
import { auditRowsPerSecond } from "./audit-rate.js";
import { membershipFigures } from "./membership-figures.js";
import { withScratchDatabase } from "./scratch-database.js";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const only = process.argv[process.argv.indexOf("--only") + 1];
const part = (name: string) => !process.argv.includes("--only") || only === name;
const settings = {
  seconds: arg("seconds", 1.5),
  rounds: arg("rounds", 4),
  freshPerPhase: arg("fresh", 600),
  connections: arg("connections", 16),
  auditEvents: arg("events", 2000),
};
const load = () => Math.round(loadavg()[0]! * 100) / 100;
const resultFile = (name: string) =>
  fileURLToPath(new URL(`../../results/${name}`, import.meta.url));

const loadStart = load();
const t0 = performance.now();
const membership = part("membership")
  ? {
      pglite: await membershipFigures(settings),
      // Half the rounds on Postgres keeps the whole run within about three minutes.
      postgres: await withScratchDatabase("svc_bench_identity_members", (databaseUrl) =>
        membershipFigures({
          ...settings,
          rounds: Math.max(1, Math.ceil(settings.rounds / 2)),
          databaseUrl,
        }),
      ),
    }
  : undefined;
const audit = part("audit")
  ? [
      await auditRowsPerSecond("pglite", settings.auditEvents),
      await auditRowsPerSecond("postgres", settings.auditEvents),
    ]
  : undefined;

const gateway = JSON.parse(readFileSync(resultFile("gateway.json"), "utf8")) as {
  machine: { date: string };
  settings: unknown;
  direct: unknown;
  gateway: unknown;
};
const result = {
  benchmark:
    "identity: authenticated requests per second through the gateway with membership enforcement (cached, cold, off), audit rows appended per second",
  machine: machine(),
  run: {
    load_average_1m: { start: loadStart, end: load() },
    seconds_total: Math.round((performance.now() - t0) / 1000),
    note: "2-core machine shared with other engineers' test runs; compare only figures of this file",
    settings,
  },
  membership_enforcement: membership && {
    platform:
      "all-in-one, SVC_AUTH_PROVIDER=oidc (hand-signed RS256 tokens from startTestIdp, local JWKS), SVC_AUTH_ENFORCE=strict, in-process bus; PGlite in memory (settings.rounds rounds) and Postgres 127.0.0.1:5432 (half as many); autocannon in the parent process, the platform in a child process",
    phases: {
      a_enforced_cached:
        "membership lookup as shipped (30 s member cache), 16 people with membership rows, their tokens round-robin: token and membership caches warm",
      b_enforced_cold_membership:
        "the same 16 tokens (verified-token cache warm), membership lookup with TTL 0: every request counts the person's membership rows in the store",
      b2_enforced_cold_new_people:
        "lookup as shipped, every request a person never seen before (distinct subject with membership rows, its own token): membership cache miss and verified-token cache miss, as a person's first request",
      c_reference_warm_tokens:
        "reference for a and b: the same route and 16 tokens, membership lookup replaced by one that admits everyone (same process, same run)",
      c2_reference_new_people:
        "reference for b2: every request a person never seen before, membership lookup replaced by one that admits everyone",
    },
    order:
      "each round runs c, a, b, c2, b2 on GET /bots then c, a, b on GET /auth/whoami; figures are medians over rounds (each round listed with the load average at its end); a ratio is taken within each round and its median reported",
    ...membership,
  },
  audit_rows_per_second: audit,
  gateway_figures_for_reference: {
    from: "bench/results/gateway.json (not measured in this run)",
    measured: gateway.machine.date,
    settings: gateway.settings,
    direct: gateway.direct,
    gateway: gateway.gateway,
  },
};
console.log(JSON.stringify(result, null, 2));
if (part("membership") && part("audit"))
  writeFileSync(resultFile("identity.json"), `${JSON.stringify(result, null, 2)}\n`);
