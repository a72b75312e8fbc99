import { createHash } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { freshMfaClaims, startTestIdp, userClaims, type TestIdp } from "@svc/lib/auth/testing";
import { grantMembership } from "../support/memberships.js";
import { createOrg, membershipsIn } from "../support/tenancy-org.js";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

const ADMIN = ["admin:tenant", "read:audit"];
const as = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * Organization invites (spec, Authentication 6: issuance needs step-up MFA): single use,
 * expiring, the token answered once and stored as a hash; accepting makes the caller a member
 * with the invite's role, even under strict enforcement where they had no membership before.
 */
describe("organization invites", () => {
  let idp: TestIdp;
  let p: RunningPlatform;
  let org: string;
  const admin = async (mfa = true) =>
    as(await idp.sign((mfa ? freshMfaClaims : userClaims)("user|admin", ADMIN)));
  const person = async (sub: string) => as(await idp.sign(userClaims(sub, [])));
  const invites = () => `/tenancy/orgs/${org}/invites`;
  const issue = async (body: Record<string, unknown> = {}) => {
    const res = await call(p.url, "POST", invites(), body, await admin());
    expect(res.status, res.text).toBe(201);
    return res.body as { invite: { id: string; status: string }; token: string };
  };
  const accept = async (sub: string, token: string) =>
    call(p.url, "POST", `${invites()}/accept`, { token }, await person(sub));

  beforeAll(async () => {
    idp = await startTestIdp();
    p = await startTestPlatform("postgres", {
      SVC_AUTH_PROVIDER: "oidc",
      SVC_AUTH_OIDC_ISSUER: idp.issuer,
      SVC_AUTH_OIDC_AUDIENCE: idp.audience,
    });
    await grantMembership(p, "user|admin");
    org = await createOrg(p, "Acme");
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    await idp?.stop();
  });

  it("asks issuance and revocation for step-up MFA, as every step-up route does", async () => {
    const refused = await call(p.url, "POST", invites(), {}, await admin(false));
    expect(refused.status, refused.text).toBe(401);
    expect(refused.body.error.code).toBe("insufficient_user_authentication");
    expect(refused.headers.get("www-authenticate")).toContain(
      'error="insufficient_user_authentication"',
    );
    const { invite } = await issue();
    const revoke = `${invites()}/${invite.id}/revoke`;
    const notRevoked = await call(p.url, "POST", revoke, {}, await admin(false));
    expect(notRevoked.status).toBe(401);
    expect(notRevoked.headers.get("www-authenticate")).toContain("max_age=0");
    const list = await call(p.url, "GET", invites(), undefined, await admin(false));
    expect(list.status, list.text).toBe(200);
    expect(list.body.items.find((i: { id: string }) => i.id === invite.id).status).toBe("pending");
  });

  it("makes a person with no membership a member with the invite's role, once", async () => {
    const before = await call(p.url, "GET", "/auth/whoami", undefined, await person("user|nina"));
    expect(before.status).toBe(403);
    expect(before.body.error.code).toBe("membership_required");
    const { invite, token } = await issue({ role: "trader", email: "nina@acme.test" });
    expect(token).toMatch(/^svcinv_[A-Za-z0-9_-]{43}$/);
    const res = await accept("user|nina", token);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      invite: { id: invite.id, status: "accepted", accepted_by: "user|nina", role: "trader" },
      membership: { scope_kind: "org", scope_id: org, role: "trader" },
    });
    expect(await membershipsIn(p, org, "user|nina")).toEqual(["invite:trader"]);
    // A non-member is remembered 2 s, so the new member gets in within that.
    const whoami = await eventually(
      "the new member passes the membership check",
      async () => call(p.url, "GET", "/auth/whoami", undefined, await person("user|nina")),
      (r) => r.status === 200,
    );
    expect(whoami.body.memberships).toContainEqual({
      scope_kind: "org",
      scope_id: org,
      role: "trader",
    });
    const again = await accept("user|omar", token);
    expect([again.status, again.body.error.code]).toEqual([409, "invite_used"]);
    expect(await membershipsIn(p, org, "user|omar")).toEqual([]);
  });

  it("shows the token once and keeps only its SHA-256", async () => {
    const { invite, token } = await issue();
    const list = await call(p.url, "GET", invites(), undefined, await admin());
    expect(list.text).not.toContain(token);
    const stored = await sql<Record<string, unknown>>`
      select * from identity.org_invites where id = ${invite.id}`.execute(p.platform.db.db);
    expect(JSON.stringify(stored.rows)).not.toContain(token);
    expect(stored.rows[0]!.token_hash).toBe(createHash("sha256").update(token).digest("hex"));
  });

  it("lets one of two concurrent accepts of an invite win", async () => {
    const { token } = await issue();
    const people = ["user|r1", "user|r2", "user|r3", "user|r4", "user|r5", "user|r6"];
    const answers = await Promise.all(people.map((sub) => accept(sub, token)));
    const won = answers.filter((a) => a.status === 200);
    expect(won, answers.map((a) => a.text).join("\n")).toHaveLength(1);
    expect(
      answers.filter((a) => a.status === 409 && a.body.error.code === "invite_used"),
    ).toHaveLength(people.length - 1);
    const members = await Promise.all(people.map((sub) => membershipsIn(p, org, sub)));
    expect(members.filter((m) => m.length > 0)).toHaveLength(1);
  });

  it("says which: a revoked, an expired and an unknown invite", async () => {
    const revoked = await issue();
    const r = await call(
      p.url,
      "POST",
      `${invites()}/${revoked.invite.id}/revoke`,
      {},
      await admin(),
    );
    expect([r.status, r.body.status, r.body.revoked_by]).toEqual([200, "revoked", "user|admin"]);
    const a1 = await accept("user|pia", revoked.token);
    expect([a1.status, a1.body.error.code]).toEqual([410, "invite_revoked"]);
    const twice = await call(
      p.url,
      "POST",
      `${invites()}/${revoked.invite.id}/revoke`,
      {},
      await admin(),
    );
    expect([twice.status, twice.body.error.code]).toEqual([410, "invite_revoked"]);

    const expired = await issue({ ttl_seconds: 300 });
    await sql`update identity.org_invites set expires_at = now() - interval '1 second'
              where id = ${expired.invite.id}`.execute(p.platform.db.db);
    const a2 = await accept("user|pia", expired.token);
    expect([a2.status, a2.body.error.code]).toEqual([410, "invite_expired"]);
    expect(a2.body.error.message).toMatch(/expired at/);

    const a3 = await accept("user|pia", "svcinv_not-a-real-token");
    expect([a3.status, a3.body.error.code]).toEqual([404, "invite_not_found"]);
    const other = await createOrg(p, "Other");
    const elsewhere = await call(
      p.url,
      "POST",
      `/tenancy/orgs/${other}/invites/accept`,
      { token: (await issue()).token },
      await person("user|pia"),
    );
    expect([elsewhere.status, elsewhere.body.error.code]).toEqual([404, "invite_not_found"]);
    expect(await membershipsIn(p, org, "user|pia")).toEqual([]);
  });

  it("refuses bad input with a 400 naming the field, and an unknown org with a 404", async () => {
    for (const [body, field] of [
      [{ ttl_seconds: 10 }, "ttl_seconds"],
      [{ ttl_seconds: 31 * 86_400 }, "ttl_seconds"],
      [{ role: "Admin!" }, "role"],
      [{ email: "x".repeat(321) }, "email"],
    ] as const) {
      const res = await call(p.url, "POST", invites(), body, await admin());
      expect(res.status, res.text).toBe(400);
      expect(res.text).toContain(field);
    }
    const unknown = await call(
      p.url,
      "POST",
      "/tenancy/orgs/00000000-0000-4000-8000-000000000000/invites",
      {},
      await admin(),
    );
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "org_not_found"]);
    const noToken = await call(p.url, "POST", `${invites()}/accept`, {}, await person("user|q"));
    expect(noToken.status).toBe(400);
    expect(noToken.text).toContain("token");
  });

  it("audits issue, revoke and accept, never with the token", async () => {
    const { invite, token } = await issue({ role: "viewer" });
    await accept("user|rita", token);
    const rows = await call(
      p.url,
      "GET",
      `/admin/audit-events?resource=${encodeURIComponent(`org_invite/${invite.id}`)}`,
      undefined,
      await admin(),
    );
    expect(rows.status, rows.text).toBe(200);
    const actions = (rows.body.items as Array<{ action: string }>).map((r) => r.action).sort();
    expect(actions).toEqual(["identity.org_invite.accepted", "identity.org_invite.issued"]);
    expect(rows.text).not.toContain(token);
    const revokes = await call(
      p.url,
      "GET",
      "/admin/audit-events?action=identity.org_invite.revoked",
      undefined,
      await admin(),
    );
    expect(revokes.body.items.length).toBeGreaterThan(0);
  });
});
