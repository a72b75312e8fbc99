import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "kysely";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import {
  LEASE_FORMAT,
  leaseTime,
  parseLease,
  signingKeyFromPem,
  signLease,
} from "@svc/identity/lease";
import { ed25519Pem } from "../support/license.js";
import { runDaemon, runDaemonUntil, type DaemonRun } from "../support/license-daemon-process.js";
import { call, startTestPlatform } from "../support/test-platform.js";

const KILL_BEFORE_RENAME = fileURLToPath(
  new URL("../support/kill-before-rename.mjs", import.meta.url),
);
/** A loopback port nothing listens on: the vendor is unreachable. */
const NOWHERE = "http://127.0.0.1:9";
// Debian's libfaketime sets the daemon's clock back. Without it that one test has nothing to run
// (npm test on a fresh machine); CI installs it (.ci/run), so there it always runs.
const FAKETIME = (process.env.PATH ?? "")
  .split(delimiter)
  .some((dir) => dir !== "" && existsSync(join(dir, "faketime")));

// Each test runs the daemon as several processes (tsx start-up each): a minute, not twenty seconds.
describe("the license daemon", { timeout: 60_000 }, () => {
  let p: RunningPlatform;
  let keyId: string;
  const dirs: string[] = [];
  beforeAll(async () => {
    // Real Postgres: the daemon's renewals are the concurrent, deadline-bound path of production.
    p = await startTestPlatform("postgres", {
      SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PEM: ed25519Pem().privateKeyPem,
      SVC_LICENSE_REGISTRY_ENFORCED: "true",
    });
    keyId = (await call(p.url, "GET", "/auth/license/public-key")).body.public_key_id;
  }, 60_000);
  afterAll(async () => {
    await p?.close();
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  });

  /** A fresh install: its folder, device key registered with a first lease that is installed. */
  async function install(deploymentId: string, ttlSeconds: number, server = p.url) {
    const dir = await mkdtemp(join(tmpdir(), "license-"));
    dirs.push(dir);
    const env = {
      SVC_LICENSE_DIR: dir,
      SVC_LICENSE_DEPLOYMENT_ID: deploymentId,
      SVC_LICENSE_PINNED_KEY_IDS: keyId,
      SVC_LICENSE_SERVER_URL: server,
      SVC_LICENSE_CHECK_INTERVAL_S: "5",
    };
    const init = await runDaemon(["init"], env);
    const devicePublicKey = JSON.parse(init.stdout).device_public_key as string;
    const issued = await call(p.url, "POST", "/auth/license/leases", {
      deployment_id: deploymentId,
      ttl_seconds: ttlSeconds,
      device_public_key: devicePublicKey,
    });
    expect(issued.status, issued.text).toBe(201);
    await writeFile(join(dir, "handed-over.json"), issued.body.lease);
    const installed = await runDaemon(["install", join(dir, "handed-over.json")], {
      ...env,
      SVC_LICENSE_SERVER_URL: server === NOWHERE ? p.url : server,
    });
    expect(installed.code, installed.stdout).toBe(0);
    return { dir, env, first: issued.body.lease as string };
  }
  const leaseIn = async (dir: string) =>
    parseLease(await readFile(join(dir, "lease.json"), "utf8"));
  const statusIn = async (dir: string) =>
    JSON.parse(await readFile(join(dir, "status.json"), "utf8"));
  const said = (run: DaemonRun, pattern: RegExp) => run.logs.some((l) => pattern.test(l.msg));

  it("keeps a 7-day lease as it is, and renews one with under 24 hours left", async () => {
    const week = await install("dep-week", 0);
    const quiet = await runDaemon(["check"], week.env);
    expect(quiet.code).toBe(0);
    expect(said(quiet, /renewed/)).toBe(false);
    expect(await statusIn(week.dir)).toMatchObject({ state: "valid", revoked: false, serial: 1 });

    const hour = await install("dep-hour", 3600);
    const run = await runDaemon(["check"], hour.env);
    expect(run.code, run.stdout).toBe(0);
    expect(said(run, /lease renewed and rewritten/)).toBe(true);
    expect((await leaseIn(hour.dir)).payload.serial).toBe(2);
    const status = await statusIn(hour.dir);
    expect(status).toMatchObject({ state: "valid", revoked: false, serial: 2 });
    expect(status.seconds_left).toBeGreaterThan(3500);
  });

  it("refuses a lease file older than one it has seen", async () => {
    const { dir, env, first } = await install("dep-serial", 3600);
    expect((await runDaemon(["check"], env)).code).toBe(0);
    await writeFile(join(dir, "lease.json"), first);
    const run = await runDaemon(["check"], { ...env, SVC_LICENSE_SERVER_URL: NOWHERE });
    expect(run.code).toBe(1);
    expect(said(run, /lease serial 1 is older than serial 2 already seen/)).toBe(true);
    expect(await statusIn(dir)).toMatchObject({ state: "invalid", refusal: "older_serial" });
  });

  it("refuses a lease signed by a key it was not pinned to", async () => {
    const { dir, env } = await install("dep-foreign", 0);
    const foreign = signingKeyFromPem(ed25519Pem().privateKeyPem);
    const now = Date.now();
    const forged = await signLease(
      {
        format: LEASE_FORMAT,
        lease_id: "forged",
        deployment_id: "dep-foreign",
        entitlements: { live_trading: true },
        serial: 99,
        issued_at: leaseTime(now),
        expires_at: leaseTime(now + 365 * 86_400_000),
        ttl_seconds: 365 * 86_400,
        grace_period_seconds: 0,
        public_key_id: foreign.publicKeyId,
      },
      foreign,
    );
    await writeFile(join(dir, "lease.json"), JSON.stringify(forged));
    const run = await runDaemon(["check"], { ...env, SVC_LICENSE_SERVER_URL: NOWHERE });
    expect(run.code).toBe(1);
    expect(said(run, new RegExp(`signed by key ${foreign.publicKeyId}, which is not pinned`))).toBe(
      true,
    );
    expect(await statusIn(dir)).toMatchObject({ state: "invalid", refusal: "unpinned_key" });
  });

  it("refuses a lease for another deployment", async () => {
    const { dir, env } = await install("dep-mine", 0);
    const other = await call(p.url, "POST", "/auth/license/leases", {
      deployment_id: "dep-theirs",
    });
    await writeFile(join(dir, "lease.json"), other.body.lease);
    const run = await runDaemon(["check"], { ...env, SVC_LICENSE_SERVER_URL: NOWHERE });
    expect(run.code).toBe(1);
    expect(said(run, /the lease is for deployment dep-theirs, this install is dep-mine/)).toBe(
      true,
    );
  });

  it.skipIf(!FAKETIME)(
    "refuses a clock earlier than the last time it ran (libfaketime)",
    async () => {
      const { dir, env } = await install("dep-clock", 0);
      expect((await runDaemon(["check"], env)).code).toBe(0);
      const run = await runDaemon(["check"], env, {
        prefix: ["env", "FAKETIME_DONT_FAKE_MONOTONIC=1", "faketime", "-f", "-2d"],
      });
      expect(run.code, run.stdout).toBe(1);
      expect(said(run, /earlier than the last run at .*: clock rollback/)).toBe(true);
      expect(await statusIn(dir)).toMatchObject({ state: "invalid", refusal: "clock_rollback" });
      expect((await runDaemon(["check"], env)).code).toBe(0);
    },
  );

  it("backs off with jitter while the identity service is unreachable", async () => {
    const { env } = await install("dep-offline", 3600, NOWHERE);
    const run = await runDaemonUntil(
      env,
      (logs) => logs.filter((l) => /retrying the renewal in/.test(l.msg)).length >= 3,
    );
    const retries = run.logs.filter((l) => /retrying the renewal in/.test(l.msg));
    expect(retries.map((l) => l.attempt)).toEqual([1, 2, 3]);
    retries.forEach((l, i) =>
      expect(l.retry_in_ms as number).toBeLessThanOrEqual(Math.min(5000, 1000 * 2 ** (i + 1))),
    );
    expect(said(run, /identity service unreachable/)).toBe(true);
  });

  it("gives up on a stalled identity and asks again: it holds the lease identity issued, and no other was minted", async () => {
    // In front of identity: the first renewal reaches it and is processed, but its answer is held
    // back until the daemon stops waiting, as when identity stalls past the daemon's deadline.
    let held = false;
    let gaveUp!: () => void;
    const daemonGaveUp = new Promise<void>((resolve) => (gaveUp = resolve));
    const stall = createServer((req, res) => {
      void (async () => {
        const chunks: Buffer[] = [];
        for await (const c of req) chunks.push(c as Buffer);
        const answer = await fetch(`${p.url}${req.url}`, {
          method: req.method,
          headers: { "content-type": "application/json" },
          ...(req.method === "POST" ? { body: Buffer.concat(chunks) } : {}),
          signal: AbortSignal.timeout(20_000),
        });
        const text = await answer.text();
        if (req.method === "POST" && !held) {
          held = true;
          res.once("close", gaveUp);
          return;
        }
        res.writeHead(answer.status, { "content-type": "application/json" }).end(text);
      })();
    });
    await new Promise<void>((resolve) => stall.listen(0, "127.0.0.1", resolve));
    try {
      const via = `http://127.0.0.1:${(stall.address() as AddressInfo).port}`;
      const { dir, env } = await install("dep-stalled", 3600);
      const stalled = await runDaemon(["check"], { ...env, SVC_LICENSE_SERVER_URL: via });
      await daemonGaveUp;
      expect(said(stalled, /identity service unreachable/)).toBe(true);
      expect((await leaseIn(dir)).payload.serial).toBe(1);

      const retried = await runDaemon(["check"], { ...env, SVC_LICENSE_SERVER_URL: via });
      expect(retried.code, retried.stdout).toBe(0);
      expect(said(retried, /lease renewed and rewritten/)).toBe(true);
      const heldLease = (await leaseIn(dir)).payload;
      expect(heldLease.serial).toBe(2);
      // The registry knows serials 1 and 2 only, and 2 is the lease on the holder's disk.
      const issued = await sql<{ lease_id: string; serial: number }>`
        select lease_id, serial from identity.license_leases
        where deployment_id = 'dep-stalled' order by serial`.execute(p.platform.db.db);
      expect(issued.rows.map((r) => r.serial)).toEqual([1, 2]);
      expect(issued.rows[1]!.lease_id).toBe(heldLease.lease_id);
    } finally {
      stall.closeAllConnections();
      await new Promise((resolve) => stall.close(resolve));
    }
  });

  it("killed between the write and the rename, leaves the old lease whole; the next run renews", async () => {
    const { dir, env, first } = await install("dep-crash", 3600);
    const killed = await runDaemon(["check"], env, { preload: KILL_BEFORE_RENAME });
    expect(killed.signal).toBe("SIGKILL");
    expect(await readFile(join(dir, "lease.json"), "utf8")).toBe(JSON.stringify(parseLease(first)));
    expect((await readdir(dir)).some((n) => n.startsWith("lease.json.tmp-"))).toBe(true);

    const next = await runDaemon(["check"], env);
    expect(next.code, next.stdout).toBe(0);
    expect(said(next, /removed temp files an interrupted rewrite left behind/)).toBe(true);
    // The renewal the killed run got, not a third lease: renewal is idempotent per lease.
    expect((await leaseIn(dir)).payload.serial).toBe(2);
    expect((await readdir(dir)).filter((n) => n.includes(".tmp-"))).toEqual([]);
  });

  it("after a revocation is told license_revoked, says so, and lets the lease decay offline", async () => {
    const { dir, env } = await install("dep-revoked", 3600);
    const revoke = await call(p.url, "POST", "/admin/license/deployments/dep-revoked/revoke", {
      reason: "unpaid",
    });
    expect(revoke.status).toBe(200);
    const run = await runDaemon(["check"], env);
    expect(said(run, /the license is revoked/)).toBe(true);
    expect(run.code).toBe(0);
    expect(await statusIn(dir)).toMatchObject({ state: "valid", revoked: true, serial: 1 });
  });
});
