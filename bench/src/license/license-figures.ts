// bench/license: leases issued per second (PGlite and Postgres), offline verifications per second
// (@noble/ed25519 and node:crypto side by side, and the whole holder check), and the license
// gate's added latency per request (the same licensed route with enforcement on and off, same run).
// Usage: npx tsx bench/src/license/license-figures.ts [--leases 300] [--requests 2000]
import { createPublicKey, generateKeyPairSync, verify } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { startPlatform, type RunningPlatform } from "@svc/all-in-one";
import { createLicenseDaemon } from "@svc/identity/license-daemon";
import { loadConfig } from "@svc/lib/config";
import {
  canonicalBytes,
  checkLease,
  openLicenseGate,
  parseLease,
  publicKeysFromPem,
  verifyLeaseSignature,
  type LicenseGate,
} from "@svc/lib/license";
import { createLogger } from "@svc/lib/telemetry";
import { machine } from "../machine.js";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const LEASES = arg("leases", 300);
const REQUESTS = arg("requests", 2000);
const log = createLogger({ name: "bench-license", level: "silent" });
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

function vendorKey() {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const privateKeyPem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const publicKeyPem = publicKey.export({ type: "spki", format: "pem" }).toString();
  return { privateKeyPem, publicKeyPem, id: publicKeysFromPem(publicKeyPem)[0]!.publicKeyId };
}

async function platform(env: Record<string, string>, license?: LicenseGate) {
  return startPlatform(
    loadConfig({ SVC_PORT: "0", SVC_DATA_DIR: "memory://", SVC_LOG_LEVEL: "silent", ...env }),
    license ? { license } : {},
  );
}

async function issue(p: RunningPlatform, deploymentId: string): Promise<string> {
  const res = await fetch(`${p.url}/auth/license/leases`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      deployment_id: deploymentId,
      entitlements: { live_trading: true, byoc_deployments: true },
    }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { lease?: string };
  if (res.status !== 201 || !body.lease) throw new Error(`issue answered ${res.status}`);
  return body.lease;
}

/** Leases issued one at a time (latency) and 8 in flight (throughput), distinct deployments. */
async function issuance(p: RunningPlatform, label: string) {
  const ms: number[] = [];
  const leases: string[] = [];
  for (let i = 0; i < 20; i++) await issue(p, `warm-${label}-${i}`);
  for (let i = 0; i < LEASES; i++) {
    const t0 = performance.now();
    leases.push(await issue(p, `seq-${label}-${i}`));
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < LEASES) await issue(p, `par-${label}-${next++}`);
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return {
    backend: label,
    sequential_p50_ms: round(quantile(ms, 0.5), 2),
    sequential_p99_ms: round(quantile(ms, 0.99), 2),
    concurrent_8_leases_per_s: Math.round(LEASES / seconds),
    leases,
  };
}

/** Verifications per second of the same leases with noble and node:crypto, and the holder check. */
async function verification(leaseTexts: string[], publicKeyPem: string, keyId: string) {
  const keys = publicKeysFromPem(publicKeyPem);
  const nodeKey = createPublicKey(publicKeyPem);
  const parsed = leaseTexts.map((t) => parseLease(t));
  const bytes = parsed.map((l) => canonicalBytes(l.payload));
  const sigs = parsed.map((l) => Buffer.from(l.signature, "base64url"));
  const timed = async (rounds: number, one: (i: number) => Promise<boolean> | boolean) => {
    for (let i = 0; i < parsed.length; i++) await one(i); // warm-up
    const t0 = performance.now();
    let n = 0;
    for (let r = 0; r < rounds; r++)
      for (let i = 0; i < parsed.length; i++, n++)
        if (!(await one(i))) throw new Error("a lease failed to verify");
    return Math.round(n / ((performance.now() - t0) / 1000));
  };
  const rounds = Math.max(1, Math.ceil(3000 / parsed.length));
  const noble = await timed(
    rounds,
    async (i) => (await verifyLeaseSignature(parsed[i]!, keys)) === undefined,
  );
  const node = await timed(rounds, (i) => verify(null, bytes[i]!, nodeKey, sigs[i]!));
  const holder = await timed(
    rounds,
    async (i) =>
      (
        await checkLease(leaseTexts[i]!, {
          deploymentId: parsed[i]!.payload.deployment_id,
          pinnedIds: [keyId],
          keys,
          highestSerial: 0,
          nowMs: Date.now(),
        })
      ).ok,
  );
  return {
    noble_verifications_per_s: noble,
    node_crypto_verifications_per_s: node,
    noble_over_node_crypto: round(noble / node, 2),
    holder_checks_per_s: holder,
  };
}

/** One licensed route on two platforms (gate on with a valid lease, gate off), rounds alternated. */
async function gateLatency(on: RunningPlatform, off: RunningPlatform, gate: LicenseGate) {
  const route = "/manage/deployments/bots/scale?replicas=1"; // 412: no cluster, after the gate
  const once = async (p: RunningPlatform) => {
    const t0 = performance.now();
    const res = await fetch(`${p.url}${route}`, {
      method: "PATCH",
      signal: AbortSignal.timeout(10_000),
    });
    await res.arrayBuffer();
    if (res.status !== 412) throw new Error(`the licensed route answered ${res.status}`);
    return performance.now() - t0;
  };
  const times = { on: [] as number[], off: [] as number[] };
  for (let i = 0; i < 200; i++) {
    await once(on);
    await once(off);
  }
  for (let round = 0; round < 10; round++)
    for (const [name, p] of [
      ["on", on],
      ["off", off],
    ] as const)
      for (let i = 0; i < REQUESTS / 10; i++) times[name].push(await once(p));
  const stats = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return { p50_ms: round(quantile(s, 0.5), 3), p99_ms: round(quantile(s, 0.99), 3) };
  };
  const [sOn, sOff] = [stats(times.on), stats(times.off)];
  // The gate's own cost, alone: one admits() on a warm gate.
  const n = 1_000_000;
  for (let i = 0; i < 10_000; i++) gate.admits("byoc_deployments");
  const t0 = performance.now();
  for (let i = 0; i < n; i++) gate.admits("byoc_deployments");
  const admitNs = ((performance.now() - t0) * 1e6) / n;
  return {
    route: `PATCH ${route} (412 after the gate: no cluster)`,
    requests_each: REQUESTS,
    enforcement_on: sOn,
    enforcement_off: sOff,
    added_p50_us: Math.round((sOn.p50_ms - sOff.p50_ms) * 1000),
    added_p99_us: Math.round((sOn.p99_ms - sOff.p99_ms) * 1000),
    gate_admits_ns: round(admitNs, 0),
  };
}

const started = { load_average_1m: round(loadavg()[0]!, 2) };
const key = vendorKey();
const admin = new pg.Client({ connectionString: "postgres://postgres@127.0.0.1:5432/postgres" });
const dbName = `svc_bench_license_${process.pid}`;
const dir = await mkdtemp(join(tmpdir(), "bench-license-"));
const open: Array<{ close(): Promise<void> }> = [];
let gate: LicenseGate | undefined;
try {
  const vendor = await platform({ SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PEM: key.privateKeyPem });
  open.push(vendor);
  const embedded = await issuance(vendor, "pglite");
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  const onPostgres = await platform({
    SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PEM: key.privateKeyPem,
    SVC_DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${dbName}`,
  });
  open.push(onPostgres);
  const real = await issuance(onPostgres, "postgres");
  await onPostgres.close();
  open.pop();

  const verifications = await verification(embedded.leases, key.publicKeyPem, key.id);

  // The install: its daemon installs a lease from the vendor; its gate verifies it.
  await createLicenseDaemon({
    dir,
    deploymentId: "bench-install",
    pinnedIds: [key.id],
    serverUrl: vendor.url,
    checkIntervalS: 900,
    log,
  }).install(await issue(vendor, "bench-install"));
  gate = await openLicenseGate({
    enforced: true,
    dir,
    deploymentId: "bench-install",
    pinnedIds: [key.id],
    refreshMs: 1000,
    log,
  });
  const on = await platform(
    {
      SVC_LICENSE_ENFORCEMENT_ENABLED: "true",
      SVC_LICENSE_DEPLOYMENT_ID: "bench-install",
      SVC_LICENSE_PINNED_KEY_IDS: key.id,
      SVC_LICENSE_DIR: dir,
    },
    gate,
  );
  open.push(on);
  const off = await platform({});
  open.push(off);
  const latency = await gateLatency(on, off, gate);

  const result = {
    benchmark:
      "license leases: issuance through the gateway, offline verification, the gate's added latency",
    machine: machine(),
    run: { ...started, leases: LEASES, note: "2-core machine; other work may have run beside it" },
    issuance: [embedded, real].map(({ leases: _l, ...figures }) => figures),
    verification: verifications,
    gate: latency,
  };
  console.log(JSON.stringify(result, null, 2));
  writeFileSync(
    fileURLToPath(new URL("../../results/license.json", import.meta.url)),
    `${JSON.stringify(result, null, 2)}\n`,
  );
} finally {
  gate?.close();
  for (const p of open.reverse()) await p.close().catch(() => {});
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => {});
  await admin.end().catch(() => {});
  await rm(dir, { recursive: true, force: true });
}
