import { createPublicKey, verify } from "node:crypto";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshMfaClaims, startTestIdp, type TestIdp } from "@svc/lib/auth/testing";
import { loadConfig } from "@svc/lib/config";
import { createLogger } from "@svc/lib/telemetry";
import { startPlatform, type RunningPlatform } from "@svc/all-in-one";
import { canonicalBytes, parseLease, signRenewal } from "@svc/identity/lease";
import { deviceKey, ed25519Pem, opensslVerifies } from "../support/license.js";
import {
  BACKENDS,
  call,
  createTestDatabase,
  startTestPlatform,
  PLATFORM_START_TIMEOUT_MS,
} from "../support/test-platform.js";
import { grantMembership } from "../support/memberships.js";
import { startOidcPlatform, testUser, type OidcPlatform } from "../support/oidc-platform.js";

const DAY = 86_400;

describe.each(BACKENDS)("license leases on %s", (backend) => {
  const key = ed25519Pem();
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform(backend, {
      SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PEM: key.privateKeyPem,
      SVC_LICENSE_REGISTRY_ENFORCED: "true",
    });
  }, 60_000);
  afterAll(async () => {
    await p?.close();
  });

  const issue = (body: Record<string, unknown>) =>
    call(p.url, "POST", "/auth/license/leases", body);

  it("issues a 7-day lease with 3 days of grace that node:crypto and openssl verify, and not once a byte flips", async () => {
    const res = await issue({
      deployment_id: "acme-prod",
      customer_id: "cust-42",
      entitlements: { live_trading: true, seats: 10 },
    });
    expect(res.status, res.text).toBe(201);
    const lease = parseLease(res.body.lease);
    expect(lease.payload).toMatchObject({
      deployment_id: "acme-prod",
      customer_id: "cust-42",
      entitlements: { live_trading: true, seats: 10 },
      ttl_seconds: 7 * DAY,
      grace_period_seconds: 3 * DAY,
      serial: 1,
      public_key_id: res.body.public_key_id,
    });
    expect(Date.parse(lease.payload.expires_at) - Date.parse(lease.payload.issued_at)).toBe(
      7 * DAY * 1000,
    );

    const served = await call(p.url, "GET", "/auth/license/public-key");
    expect(served.status).toBe(200);
    expect(served.body.public_key_id).toBe(lease.payload.public_key_id);
    const pem = served.body.keys[0].public_key_pem as string;
    expect(createPublicKey(pem).export({ type: "spki", format: "pem" })).toBe(key.publicKeyPem);

    const bytes = Buffer.from(canonicalBytes(lease.payload));
    const sig = Buffer.from(lease.signature, "base64url");
    expect(verify(null, bytes, createPublicKey(pem), sig)).toBe(true);
    expect(await opensslVerifies(pem, bytes, sig)).toBe(true);

    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 3] = flipped[flipped.length - 3]! ^ 0x01;
    expect(verify(null, flipped, createPublicKey(pem), sig)).toBe(false);
    expect(await opensslVerifies(pem, flipped, sig)).toBe(false);
  });

  it("clamps the ttl to the contract end", async () => {
    const ends = new Date(Date.now() + 2 * DAY * 1000 + 30_000);
    const res = await issue({
      deployment_id: "acme-short",
      ttl_seconds: 30 * DAY,
      contract_ends_at: ends.toISOString(),
    });
    expect(res.status, res.text).toBe(201);
    const lease = parseLease(res.body.lease);
    expect(Date.parse(lease.payload.expires_at)).toBeLessThanOrEqual(ends.getTime());
    expect(lease.payload.ttl_seconds).toBeLessThanOrEqual(2 * DAY + 31);
  });

  it.each([
    ["a NUL byte", { deployment_id: "acme\u0000x" }, "deployment_id"],
    ["no deployment", { deployment_id: null }, "deployment_id"],
    ["a ttl of ten years", { deployment_id: "acme", ttl_seconds: 10 * 365 * DAY }, "ttl_seconds"],
    ["a negative ttl", { deployment_id: "acme", ttl_seconds: -1 }, "ttl_seconds"],
    [
      "a contract already over",
      { deployment_id: "acme", contract_ends_at: "2020-01-01T00:00:00Z" },
      "contract_ends_at",
    ],
    [
      "a short device key",
      { deployment_id: "acme", device_public_key: "abc" },
      "device_public_key",
    ],
    [
      "a NUL inside the entitlements",
      { deployment_id: "acme", entitlements: { "a\u0000": 1 } },
      undefined,
    ],
  ])("answers 400 naming the field for %s", async (_what, body, field) => {
    const res = await issue(body);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.code).toBe("invalid_argument");
    if (field) expect(res.body.error.message).toContain(field);
  });

  it("gives two issues for one deployment at the same moment two distinct serials", async () => {
    const results = await Promise.all(
      Array.from({ length: 8 }, () => issue({ deployment_id: "acme-race" })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(201));
    const serials = results.map((r) => Number(r.body.serial)).sort((a, b) => a - b);
    expect(serials).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it("answers a retried renewal of one lease with the lease the first renewal got, even racing", async () => {
    const device = deviceKey();
    const first = await issue({ deployment_id: "acme-retry", device_public_key: device.publicKey });
    expect(first.status, first.text).toBe(201);
    // A holder that gave up waiting asks again, each time with a freshly signed request.
    const renewOnce = async () =>
      issue({
        deployment_id: "acme-retry",
        renew_lease_id: first.body.lease_id,
        device_credential: await signRenewal(device.secretKey, {
          deploymentId: "acme-retry",
          leaseId: first.body.lease_id,
        }),
      });
    const racing = await Promise.all(Array.from({ length: 4 }, renewOnce));
    const later = await renewOnce();
    const answers = [...racing, later];
    expect(answers.map((r) => r.status)).toEqual(Array(5).fill(201));
    const leases = answers.map((r) => parseLease(r.body.lease));
    expect(new Set(leases.map((l) => l.payload.lease_id)).size).toBe(1);
    expect(new Set(leases.map((l) => l.signature)).size).toBe(1);
    expect(leases[0]!.payload.serial).toBe(2);

    // The next issue takes serial 3: no lease nobody holds was minted in between.
    const next = await issue({ deployment_id: "acme-retry" });
    expect(Number(next.body.serial)).toBe(3);
  });

  it("renews for the holder of the device key, once per signed request, and after revocation answers 403 license_revoked", async () => {
    const device = deviceKey();
    const first = await issue({ deployment_id: "acme-renew", device_public_key: device.publicKey });
    expect(first.status, first.text).toBe(201);
    const renewal = (credential: string, leaseId = first.body.lease_id) =>
      issue({
        deployment_id: "acme-renew",
        renew_lease_id: leaseId,
        device_credential: credential,
      });

    const credential = await signRenewal(device.secretKey, {
      deploymentId: "acme-renew",
      leaseId: first.body.lease_id,
    });
    const renewed = await renewal(credential);
    expect(renewed.status, renewed.text).toBe(201);
    expect(parseLease(renewed.body.lease).payload.serial).toBe(2);

    const replay = await renewal(credential);
    expect(replay.status).toBe(409);
    expect(replay.body.error.code).toBe("renewal_replayed");

    const stranger = deviceKey();
    const forged = await renewal(
      await signRenewal(stranger.secretKey, {
        deploymentId: "acme-renew",
        leaseId: first.body.lease_id,
      }),
    );
    expect(forged.status).toBe(401);
    expect(forged.body.error.code).toBe("device_credential_invalid");

    const stale = await renewal(
      await signRenewal(device.secretKey, {
        deploymentId: "acme-renew",
        leaseId: first.body.lease_id,
        nowMs: Date.now() - 3600_000,
      }),
    );
    expect(stale.status).toBe(401);
    expect(stale.body.error.message).toMatch(/clock/);

    const unknown = await issue({
      deployment_id: "nobody",
      renew_lease_id: first.body.lease_id,
      device_credential: await signRenewal(device.secretKey, {
        deploymentId: "nobody",
        leaseId: first.body.lease_id,
      }),
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("license_deployment_not_found");

    const revoke = await call(p.url, "POST", "/admin/license/deployments/acme-renew/revoke", {
      reason: "contract terminated",
    });
    expect(revoke.status, revoke.text).toBe(200);
    expect(revoke.body.revoked).toBe(2);
    // Written in the revoke's own transaction, so it is in the chain when the answer comes.
    const audit = await call(
      p.url,
      "GET",
      "/admin/audit-events?action=admin.identity.license.revoke",
    );
    expect(audit.body.items).toEqual([
      expect.objectContaining({
        service: "identity",
        resource: "license_deployment/acme-renew",
        outcome: "succeeded",
        details: expect.objectContaining({ reason: "contract terminated" }),
      }),
    ]);

    const after = await renewal(
      await signRenewal(device.secretKey, {
        deploymentId: "acme-renew",
        leaseId: renewed.body.lease_id,
      }),
      renewed.body.lease_id,
    );
    expect(after.status).toBe(403);
    expect(after.body.error.code).toBe("license_revoked");

    const reissue = await issue({ deployment_id: "acme-renew" });
    expect(reissue.status).toBe(403);
    expect(reissue.body.error.code).toBe("license_revoked");

    const missing = await call(p.url, "POST", "/admin/license/deployments/nobody/revoke", {
      reason: "x",
    });
    expect(missing.status).toBe(404);
  });
});

describe("licensing without a signing key", () => {
  let p: RunningPlatform;
  const lines: string[] = [];
  beforeAll(async () => {
    const config = loadConfig({
      SVC_PORT: "0",
      SVC_DATA_DIR: "memory://",
      SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PATH: "/nonexistent/lease.pem",
    });
    const destination = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    p = await startPlatform(config, { log: createLogger({ name: "t", destination }) });
  });
  afterAll(async () => {
    await p?.close();
  });

  it("answers 503 license_lease_unavailable and said at start-up that licensing is off and why", async () => {
    for (const [method, path, body] of [
      ["POST", "/auth/license/leases", { deployment_id: "acme" }],
      ["GET", "/auth/license/public-key", undefined],
    ] as const) {
      const res = await call(p.url, method, path, body);
      expect(res.status, res.text).toBe(503);
      expect(res.body.error.code).toBe("license_lease_unavailable");
      expect(res.body.error.message).toContain("/nonexistent/lease.pem");
    }
    const off = lines.map((l) => JSON.parse(l)).find((l) => /licensing is off/.test(l.msg));
    expect(off?.msg).toMatch(/SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PATH .* cannot be read: ENOENT/);
  });
});

describe("a rotated signing key", () => {
  it(
    "stays served beside the new one, so the leases it signed still verify",
    async () => {
      const db = await createTestDatabase();
      const oldKey = ed25519Pem();
      const newKey = ed25519Pem();
      try {
        const before = await startTestPlatform("postgres", {
          SVC_DATABASE_URL: db.url,
          SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PEM: oldKey.privateKeyPem,
        });
        const issued = await call(before.url, "POST", "/auth/license/leases", {
          deployment_id: "rot",
        });
        await before.close();

        const after = await startTestPlatform("postgres", {
          SVC_DATABASE_URL: db.url,
          SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PEM: newKey.privateKeyPem,
          SVC_AUTH_LICENSE_LEASE_RETIRED_PUBLIC_KEYS_PEM: oldKey.publicKeyPem,
        });
        try {
          const served = await call(after.url, "GET", "/auth/license/public-key");
          expect(served.body.keys.map((k: { active: boolean }) => k.active)).toEqual([true, false]);
          expect(served.body.retired_public_key_ids).toEqual([issued.body.public_key_id]);
          const old = served.body.keys[1];
          const lease = parseLease(issued.body.lease);
          expect(
            verify(
              null,
              canonicalBytes(lease.payload),
              createPublicKey(old.public_key_pem),
              Buffer.from(lease.signature, "base64url"),
            ),
          ).toBe(true);
          expect(Date.parse(old.served_until)).toBe(
            Date.parse(lease.payload.expires_at) + 3 * DAY * 1000,
          );
          const fresh = await call(after.url, "POST", "/auth/license/leases", {
            deployment_id: "rot",
          });
          expect(fresh.body.public_key_id).toBe(served.body.public_key_id);
          expect(fresh.body.public_key_id).not.toBe(issued.body.public_key_id);
        } finally {
          await after.close();
        }
      } finally {
        await db.drop();
      }
    },
    PLATFORM_START_TIMEOUT_MS,
  );
});

describe("issuing and revoking with OIDC tokens", () => {
  let o: OidcPlatform;
  beforeAll(async () => {
    o = await startOidcPlatform(
      "pglite",
      [
        testUser("nobody", []),
        testUser("issuer", ["issue:license"]),
        testUser("vendor", ["admin:license"]),
      ],
      { SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PEM: ed25519Pem().privateKeyPem },
    );
  }, 60_000);
  afterAll(async () => {
    await o?.close();
  });
  const bearer = async (username: string, mfa = true) => ({
    authorization: `Bearer ${await o.tokens.user(username, { mfa })}`,
  });

  it("issues only to a person holding issue:license, and revokes only after a multi-factor step-up", async () => {
    const body = { deployment_id: "oidc-dep" };
    expect((await call(o.p.url, "POST", "/auth/license/leases", body)).status).toBe(401);
    const noScope = await call(
      o.p.url,
      "POST",
      "/auth/license/leases",
      body,
      await bearer("nobody"),
    );
    expect(noScope.status).toBe(403);
    expect(noScope.body.error.code).toBe("missing_scope");
    const ok = await call(o.p.url, "POST", "/auth/license/leases", body, await bearer("issuer"));
    expect(ok.status, ok.text).toBe(201);

    const path = "/admin/license/deployments/oidc-dep/revoke";
    const single = await call(
      o.p.url,
      "POST",
      path,
      { reason: "t" },
      await bearer("vendor", false),
    );
    expect(single.status).toBe(401);
    expect(single.body.error.code).toBe("insufficient_user_authentication");
    const fresh = await call(o.p.url, "POST", path, { reason: "t" }, await bearer("vendor"));
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.body.revoked).toBe(1);
  });
});

// A multi-factor sign-in an hour old cannot be had from a real provider without waiting out the
// 180 s step-up window: the stale token is crafted, token-attack style, so it stays hand-signed,
// on a platform that trusts the hand-signing provider (its fresh tokens included).
describe("revoking with a stale MFA (hand-signed)", () => {
  let idp: TestIdp;
  let p: RunningPlatform;
  const now = () => Math.floor(Date.now() / 1000);
  beforeAll(async () => {
    idp = await startTestIdp();
    p = await startTestPlatform("pglite", {
      SVC_AUTH_PROVIDER: "oidc",
      SVC_AUTH_OIDC_ISSUER: idp.issuer,
      SVC_AUTH_OIDC_AUDIENCE: idp.audience,
      SVC_AUTH_LICENSE_LEASE_PRIVATE_KEY_PEM: ed25519Pem().privateKeyPem,
    });
    await grantMembership(p, "user|vendor");
  }, 60_000);
  afterAll(async () => {
    await p?.close();
    await idp?.stop();
  });
  const bearer = async (scopes: string[], extra = {}) => ({
    authorization: `Bearer ${await idp.sign(freshMfaClaims("user|vendor", scopes, extra))}`,
  });

  it("refuses the revoke with insufficient_user_authentication, and a fresh MFA revokes", async () => {
    const issued = await call(
      p.url,
      "POST",
      "/auth/license/leases",
      { deployment_id: "oidc-dep" },
      await bearer(["issue:license"]),
    );
    expect(issued.status, issued.text).toBe(201);
    const path = "/admin/license/deployments/oidc-dep/revoke";
    const stale = await call(
      p.url,
      "POST",
      path,
      { reason: "t" },
      await bearer(["admin:license"], { auth_time: now() - 3600 }),
    );
    expect(stale.status).toBe(401);
    expect(stale.body.error.code).toBe("insufficient_user_authentication");
    const fresh = await call(p.url, "POST", path, { reason: "t" }, await bearer(["admin:license"]));
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.body.revoked).toBe(1);
  });
});
