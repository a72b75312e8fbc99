import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { freshMfaClaims, startTestIdp, userClaims, type TestIdp } from "@svc/lib/auth/testing";
import { grantMembership } from "../support/memberships.js";
import { createOrg, membershipsIn } from "../support/tenancy-org.js";
import { call, PLATFORM_START_TIMEOUT_MS, startTestPlatform } from "../support/test-platform.js";

const M2M_AUDIENCE = "https://internal.svc.test";
const ADMIN = ["admin:tenant", "read:audit"];
const as = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * The admin tenancy-strategy migration (spec, Authentication 6: it needs step-up MFA): a dry run
 * shows the memberships a move adds and removes and changes nothing; the move applies exactly
 * that in one transaction, audited; of two moves at once, one wins.
 */
describe("the tenancy-strategy migration", () => {
  let idp: TestIdp;
  let p: RunningPlatform;
  let org: string;
  const admin = async (mfa = true) =>
    as(await idp.sign((mfa ? freshMfaClaims : userClaims)("user|admin", ADMIN)));
  const route = (what: "dry-run" | "migrate") => `/tenancy/orgs/${org}/tenancy-strategy/${what}`;
  const syncGroups = async (subject: string, groups: string[]) => {
    const hook = await idp.sign({
      sub: "hook@clients",
      gty: "client-credentials",
      aud: M2M_AUDIENCE,
    });
    const res = await call(
      p.url,
      "POST",
      "/_internal/idp/sync-groups",
      {
        user_id: subject,
        idp_organization_id: "globex",
        connection_kind: "generic_oidc",
        external_groups: groups,
      },
      as(hook),
    );
    expect(res.status, res.text).toBe(200);
    return res.body as { memberships_upserted: number; memberships_removed: number };
  };

  beforeAll(async () => {
    idp = await startTestIdp();
    p = await startTestPlatform("postgres", {
      SVC_AUTH_PROVIDER: "oidc",
      SVC_AUTH_OIDC_ISSUER: idp.issuer,
      SVC_AUTH_OIDC_AUDIENCE: idp.audience,
      SVC_AUTH_M2M_ENABLED: "true",
      SVC_AUTH_M2M_AUDIENCE: M2M_AUDIENCE,
    });
    await grantMembership(p, "user|admin");
    org = await createOrg(p, "globex");
    await sql`insert into identity.idp_connections (id, org_id, connection_kind, name, status)
              values (${randomUUID()}, ${org}, 'generic_oidc', 'globex-sso', 'active')`.execute(
      p.platform.db.db,
    );
    const mapping = await call(
      p.url,
      "POST",
      `/tenancy/orgs/${org}/idp-group-mappings`,
      {
        connection_kind: "generic_oidc",
        external_group: "traders",
        scope_kind: "org",
        scope_id: org,
        role: "trader",
      },
      await admin(),
    );
    expect(mapping.status, mapping.text).toBe(201);
    // Gus gets in through his group, Ivy through an invite; one more invite waits.
    expect((await syncGroups("user|gus", ["traders"])).memberships_upserted).toBe(1);
    const issue = async () =>
      (await call(p.url, "POST", `/tenancy/orgs/${org}/invites`, { role: "viewer" }, await admin()))
        .body.token as string;
    const accepted = await call(
      p.url,
      "POST",
      `/tenancy/orgs/${org}/invites/accept`,
      { token: await issue() },
      as(await idp.sign(userClaims("user|ivy", []))),
    );
    expect(accepted.status, accepted.text).toBe(200);
    await issue();
  }, PLATFORM_START_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    await idp?.stop();
  });

  const gus = { subject: "user|gus", scope_kind: "org", role: "trader", source: "idp_group" };
  const ivy = { subject: "user|ivy", scope_kind: "org", role: "viewer", source: "invite" };

  it("shows in a dry run what a move to invite_only removes, and changes nothing", async () => {
    const plan = await call(
      p.url,
      "POST",
      route("dry-run"),
      { strategy: "invite_only" },
      await admin(false),
    );
    expect(plan.status, plan.text).toBe(200);
    expect(plan.body).toMatchObject({
      org_id: org,
      from: "hybrid",
      to: "invite_only",
      added: [],
      removed: [{ ...gus, scope_id: org, source_group: "traders" }],
      applied: false,
    });
    expect(await membershipsIn(p, org, "user|gus")).toEqual(["idp_group:trader:traders"]);
  });

  it("asks the move for step-up MFA, then applies the plan and audits it", async () => {
    const refused = await call(
      p.url,
      "POST",
      route("migrate"),
      { strategy: "invite_only" },
      await admin(false),
    );
    expect(refused.status, refused.text).toBe(401);
    expect(refused.body.error.code).toBe("insufficient_user_authentication");
    expect(refused.headers.get("www-authenticate")).toContain(
      'error="insufficient_user_authentication"',
    );
    expect(await membershipsIn(p, org, "user|gus")).toEqual(["idp_group:trader:traders"]);

    const moved = await call(
      p.url,
      "POST",
      route("migrate"),
      { strategy: "invite_only" },
      await admin(),
    );
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body).toMatchObject({ from: "hybrid", to: "invite_only", applied: true });
    expect(moved.body.removed).toHaveLength(1);
    expect(await membershipsIn(p, org, "user|gus")).toEqual([]);
    expect(await membershipsIn(p, org, "user|ivy")).toEqual(["invite:viewer"]);
    // Groups grant nothing in an invite-only org; what Gus reports is kept for a later move.
    expect(await syncGroups("user|gus", ["traders"])).toMatchObject({ memberships_upserted: 0 });
    expect(await membershipsIn(p, org, "user|gus")).toEqual([]);

    const audit = await call(
      p.url,
      "GET",
      `/admin/audit-events?action=identity.tenancy_strategy.migrated&resource=org%2F${org}`,
      undefined,
      await admin(),
    );
    expect(audit.body.items).toHaveLength(1);
    expect(audit.body.items[0]).toMatchObject({
      outcome: "succeeded",
      actor: { subject: "user|admin" },
      details: { from: "hybrid", to: "invite_only", invites_revoked: 0 },
    });
  });

  it("lets one of two moves at once win, and a move to group_mapped adds what groups grant", async () => {
    const plan = await call(
      p.url,
      "POST",
      route("dry-run"),
      { strategy: "group_mapped" },
      await admin(),
    );
    expect(plan.body).toMatchObject({
      from: "invite_only",
      to: "group_mapped",
      added: [{ ...gus, scope_id: org, source_group: "traders" }],
      removed: [{ ...ivy, scope_id: org, source_group: "" }],
      invites_revoked: 1,
    });
    const answers = await Promise.all(
      [1, 2, 3].map(async () =>
        call(p.url, "POST", route("migrate"), { strategy: "group_mapped" }, await admin()),
      ),
    );
    expect(
      answers.filter((a) => a.status === 200),
      answers.map((a) => a.text).join("\n"),
    ).toHaveLength(1);
    expect(
      answers.filter((a) => a.status === 409 && a.body.error.code === "tenancy_strategy_unchanged"),
    ).toHaveLength(2);
    expect(answers.find((a) => a.status === 200)!.body).toMatchObject({
      added: plan.body.added,
      removed: plan.body.removed,
      invites_revoked: 1,
    });
    expect(await membershipsIn(p, org, "user|gus")).toEqual(["idp_group:trader:traders"]);
    expect(await membershipsIn(p, org, "user|ivy")).toEqual([]);
    const invites = await call(
      p.url,
      "GET",
      `/tenancy/orgs/${org}/invites`,
      undefined,
      await admin(),
    );
    expect(invites.body.items.map((i: { status: string }) => i.status).sort()).toEqual([
      "accepted",
      "revoked",
    ]);
    const issue = await call(p.url, "POST", `/tenancy/orgs/${org}/invites`, {}, await admin());
    expect([issue.status, issue.body.error.code]).toEqual([412, "org_invites_disabled"]);
  });

  it("refuses bad input with a 400 naming the field, and an unknown org with a 404", async () => {
    for (const body of [{}, { strategy: "bogus" }, { strategy: "unspecified" }]) {
      const res = await call(p.url, "POST", route("dry-run"), body, await admin());
      expect(res.status, res.text).toBe(400);
      expect(res.text).toContain("strategy");
    }
    const unknown = await call(
      p.url,
      "POST",
      "/tenancy/orgs/00000000-0000-4000-8000-000000000000/tenancy-strategy/migrate",
      { strategy: "hybrid" },
      await admin(),
    );
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "org_not_found"]);
  });
});
