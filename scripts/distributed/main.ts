import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { ephemeralStatementKeyPem } from "@svc/lib/signed-statement";
import { defaultUsers, startDevIdp, type DevIdp } from "@svc/dev-idp";
import { provisionDatabase, SCHEMA_OWNERS, type SchemaOwner } from "./database.js";
import { Supervisor, type Supervised } from "./supervisor.js";
import { childSpecs, serviceUrl, type Layout } from "./topology.js";

/**
 * `npm run start:distributed`: the distributed topology on one machine. The dev OIDC provider
 * runs here (so this process knows each service's client secret and hands each service its
 * own); Postgres gets one role per service owning its own schema; then every service, the
 * runners and the gateway run as child processes, each on its own port. Ctrl-C ends them all.
 * docs/distributed.md says what runs and which settings it reads.
 */
const root = fileURLToPath(new URL("../../", import.meta.url));
const env = process.env;
const host = "127.0.0.1";
const say = (line: string) => process.stdout.write(`[supervisor] ${line}\n`);

const adminUrl = env.SVC_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const database = env.SVC_DATABASE_URL
  ? decodeURIComponent(new URL(env.SVC_DATABASE_URL).pathname.slice(1))
  : (env.SVC_DISTRIBUTED_DATABASE ?? "svc_distributed");
const apiAudience = env.SVC_AUTH_OIDC_AUDIENCE ?? "https://api.svc.local";
const claimsNamespace = env.SVC_AUTH_CLAIMS_NAMESPACE ?? "https://svc.example/claims/";
const gatewayPort = Number(env.SVC_PORT ?? 8080);

let idp: DevIdp | undefined;
const supervisor = new Supervisor(root, say, (why) => void shutDown(1, why));
const stopOrder = [
  ["gateway"],
  ["runner-1", "runner-2", "runner-3", "runner-4"],
  [...SCHEMA_OWNERS],
];
let shuttingDown = false;

async function shutDown(code: number, why: string): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  say(`${why}: stopping every process`);
  await supervisor.stop(stopOrder);
  await idp?.close();
  say("stopped");
  process.exit(code);
}
process.on("SIGINT", () => void shutDown(0, "SIGINT"));
process.on("SIGTERM", () => void shutDown(0, "SIGTERM"));

try {
  // SVC_AUTH_PROVIDER=local (loopback only) runs without a provider: the README's demo as written.
  if (env.SVC_AUTH_PROVIDER !== "local") {
    const users = defaultUsers(
      Object.fromEntries(
        ["alice", "bob", "admin"].map((name) => {
          const password = env[`DEV_IDP_${name.toUpperCase()}_PASSWORD`];
          const totpSecret = env[`DEV_IDP_${name.toUpperCase()}_TOTP_SECRET`];
          return [
            name,
            { ...(password ? { password } : {}), ...(totpSecret ? { totpSecret } : {}) },
          ];
        }),
      ),
    );
    idp = await startDevIdp({
      port: Number(env.DEV_IDP_PORT ?? 0),
      apiAudience,
      claimsNamespace,
      apiUrl: `http://${host}:${gatewayPort}`,
      users,
      log: (message, detail) =>
        process.stderr.write(`[idp] ${message} ${detail ? JSON.stringify(detail) : ""}\n`),
    });
  }
  const databaseUrls = await provisionDatabase(adminUrl, database);
  const ports = await Promise.all(SCHEMA_OWNERS.map(() => freePort()));
  const layout: Layout = {
    host,
    gatewayPort,
    servicePorts: Object.fromEntries(SCHEMA_OWNERS.map((s, i) => [s, ports[i]!])) as Record<
      SchemaOwner,
      number
    >,
    databaseUrls,
    natsUrl: env.SVC_NATS_URL ?? "nats://127.0.0.1:4222",
    natsNamespace: env.SVC_NATS_NAMESPACE ?? "svcdist",
    redisUrl: env.SVC_REDIS_URL ?? "redis://127.0.0.1:6379",
    runners: Number(env.SVC_DISTRIBUTED_RUNNERS ?? 1),
    apiAudience,
    claimsNamespace,
    promotionKeys:
      env.SVC_PROMOTION_SIGNING_KEY_PEM && env.SVC_PROMOTION_PUBLIC_KEY_PEM
        ? {
            privateKeyPem: env.SVC_PROMOTION_SIGNING_KEY_PEM,
            publicKeyPem: env.SVC_PROMOTION_PUBLIC_KEY_PEM,
          }
        : ephemeralStatementKeyPem(),
    leaseSigningKey: Object.fromEntries(
      ["SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PEM", "SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PATH"].flatMap(
        (key) => (env[key] ? [[key, env[key]]] : []),
      ),
    ),
  };
  const specs = childSpecs(layout, idp);
  const byName = (name: string) => specs.find((s) => s.name === name)!;
  const services: Supervised[] = SCHEMA_OWNERS.map((s) => ({
    spec: byName(s),
    ready: { grpc: serviceUrl(layout, s) },
  }));
  say(`database ${database}: a role per service, each owning its own schema; starting services`);
  await supervisor.start(services);
  await supervisor.start(
    specs
      .filter((s) => s.name.startsWith("runner-"))
      .map((spec) => ({ spec, ready: { line: "runner ready" } })),
  );
  const gatewayUrl = `http://${host}:${gatewayPort}`;
  await supervisor.start([{ spec: byName("gateway"), ready: { http: gatewayUrl } }]);
  printReady(gatewayUrl, idp);
} catch (err) {
  await shutDown(1, `could not start: ${(err as Error).message}`);
}

function printReady(gatewayUrl: string, provider: DevIdp | undefined): void {
  const lines = !provider
    ? [
        `gateway ${gatewayUrl}, local auth (loopback only): name yourself with the x-svc-local-user header`,
        "Ctrl-C stops every process.",
      ]
    : [
        `gateway ${gatewayUrl}, provider ${provider.issuer}`,
        "people (password, TOTP secret):",
        ...provider.users.map((u) => `  ${u.username.padEnd(6)} ${u.password}  ${u.totpSecret}`),
        "a token (alice):",
        `  TOKEN=$(SVC_PORT=${gatewayPort} npm run -s idp:token -- alice '${provider.users[0]!.password}')`,
        `  curl -H "authorization: Bearer $TOKEN" ${gatewayUrl}/auth/whoami`,
        "Ctrl-C stops every process.",
      ];
  for (const l of lines) say(l);
  say(
    `ready ${JSON.stringify({ gateway: gatewayUrl, issuer: provider?.issuer, pids: supervisor.pids() })}`,
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, host, () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
