// Child process of bench/identity: the platform under OIDC with SVC_AUTH_ENFORCE=strict, a bench
// bot, people with membership rows and their tokens. The parent switches the membership lookup
// between phases over stdin ("mode shipped|uncached|off"), so every figure comes from one process.
import { createInterface } from "node:readline";
import { sql } from "kysely";
import { startPlatform } from "@svc/all-in-one";
import { createMembershipLookup } from "@svc/lib/auth";
import type { MembershipLookup } from "@svc/lib/auth";
import { freshMfaClaims, startTestIdp } from "@svc/lib/auth/testing";
import { loadConfig } from "@svc/lib/config";
import { timeColdSteps } from "./cold-steps.js";
import { grantMemberships } from "./people.js";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const WARM_PEOPLE = arg("warm-people", 16);
const FRESH_PEOPLE = arg("fresh-people", 4000);
const databaseUrl = process.argv[process.argv.indexOf("--database-url") + 1];
const onPostgres = process.argv.includes("--database-url") && databaseUrl !== undefined;

const idp = await startTestIdp();
const running = await startPlatform(
  loadConfig({
    SVC_PORT: "0",
    SVC_DATA_DIR: "memory://",
    ...(onPostgres ? { SVC_DATABASE_URL: databaseUrl } : {}),
    SVC_LOG_LEVEL: "silent",
    SVC_AUTH_PROVIDER: "oidc",
    SVC_AUTH_OIDC_ISSUER: idp.issuer,
    SVC_AUTH_OIDC_AUDIENCE: idp.audience,
    SVC_AUTH_ENFORCE: "strict",
  }),
);
const db = running.platform.db.db;
const warm = Array.from({ length: WARM_PEOPLE }, (_, i) => `user|bench-warm-${i}`);
const fresh = Array.from({ length: FRESH_PEOPLE }, (_, i) => `user|bench-fresh-${i}`);
await grantMemberships(db, [...warm, ...fresh]);

// The identity module's lookup cannot be reached once installed, so the bench installs its own of
// the same code (lib createMembershipLookup), TTLs (services/identity/src/index.ts) and query
// (membershipCountOf in services/identity/src/store/tenancy.repository.ts).
const countOf = async (subject: string) => {
  const { rows } = await sql<{ n: string | number }>`
    select count(*) as n from identity.memberships m
    join identity.users u on u.id = m.user_id where u.subject = ${subject}`.execute(db);
  return Number(rows[0]?.n ?? 0);
};
const timeoutMs = running.platform.config.timeouts.dbMs;
const lookups: Record<string, MembershipLookup> = {
  shipped: createMembershipLookup({ countOf, ttlMs: 30_000, negativeTtlMs: 2_000, timeoutMs }),
  // Every request asks the store: a cold membership with a warm token.
  uncached: createMembershipLookup({ countOf, ttlMs: 0, negativeTtlMs: 0, timeoutMs }),
  off: async () => true,
};
running.platform.useMembershipLookup(lookups.shipped!);

const sign = (sub: string) =>
  idp.sign(freshMfaClaims(sub, ["read:bots", "write:bots"]), { expiresIn: "2h" });
const warmTokens = await Promise.all(warm.map(sign));
const freshTokens: string[] = [];
for (const sub of fresh) freshTokens.push(await sign(sub));

const created = await fetch(`${running.url}/bots`, {
  method: "POST",
  headers: { authorization: `Bearer ${warmTokens[0]}`, "content-type": "application/json" },
  body: JSON.stringify({
    name: "Bench bot",
    kind: "trading",
    strategy: { family: "ma_crossover", parameters: { fast: 10, slow: 30 } },
  }),
});
if (created.status !== 201)
  throw new Error(`could not create the bench bot: ${created.status} ${await created.text()}`);

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const [verb, mode] = line.split(" ");
  if (verb === "cold-steps") {
    // The last fresh people: the parent never sends their tokens.
    const people = fresh.slice(-200).map((subject, i) => ({
      subject,
      token: freshTokens[freshTokens.length - 200 + i]!,
    }));
    void timeColdSteps({ countOf, auth: running.platform.config.auth, people }).then((r) =>
      process.stdout.write(`${JSON.stringify(r)}\n`),
    );
    return;
  }
  const lookup = verb === "mode" && mode ? lookups[mode] : undefined;
  if (!lookup) {
    process.stdout.write(`error unknown command ${line}\n`);
    return;
  }
  running.platform.useMembershipLookup(lookup);
  process.stdout.write("ok\n");
});
process.stdout.write(
  `${JSON.stringify({
    gateway: running.url,
    botRef: "bench-bot", // the slug of "Bench bot", as in bench/gateway
    storage: onPostgres ? "postgres" : "pglite",
    warmTokens,
    freshTokens,
  })}\n`,
);
process.on("SIGTERM", async () => {
  lines.close();
  await running.close();
  await idp.stop();
  process.exit(0);
});
