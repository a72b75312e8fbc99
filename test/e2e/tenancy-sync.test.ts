import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, PLATFORM_START_TIMEOUT_MS } from "../support/test-platform.js";
import { eventually } from "../support/until.js";
import {
  M2M_AUDIENCE,
  startOidcPlatform,
  testUser,
  type OidcPlatform,
} from "../support/oidc-platform.js";

const ACME = { id: "org_acme", name: "Acme" };

/**
 * The post-login hook's side of the platform: the sync route provisions the person and the org
 * once, however often a login repeats; group sync grants what the org's mappings say for the
 * user's external groups per active connection, and takes away what a left group granted.
 */
describe("post-login sync, group mappings and memberships", () => {
  let o: OidcPlatform;
  let p: OidcPlatform["p"];
  let hook: string;
  let admin: string;
  const post = (token: string, path: string, body: unknown) =>
    call(p.url, "POST", path, body, { authorization: `Bearer ${token}` });
  // Carol's sign-ins come later; her org at the provider is the one these calls sync, so the
  // post-login action of her sign-in adds nothing the direct calls did not.
  const login = {
    user_id: "dev|carol",
    email: "carol@acme.test",
    organization_id: "org_acme",
    organization_name: "Acme",
  };

  beforeAll(async () => {
    o = await startOidcPlatform("pglite", [
      testUser("admin", ["admin:tenant", "read:audit"]),
      testUser("trader", ["read:bots"]),
      testUser("carol", ["read:bots"], { email: "carol@acme.test", organization: ACME }),
      testUser("dora", ["read:bots", "write:bots"], { email: "d@acme.test", organization: ACME }),
    ]);
    p = o.p;
    hook = await o.tokens.machine(M2M_AUDIENCE, "postLoginHook");
    admin = await o.tokens.user("admin", { mfa: true });
  }, 60_000);
  afterAll(async () => {
    await o?.close();
  });

  let orgId: string;
  it("provisions the user and the org once, and answers the same claims every time", async () => {
    const first = await post(hook, "/_internal/oidc/sync", {
      ...login,
      requested_claims: { connection: "acme-okta", strategy: "oidc" },
    });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ connection: "acme-okta", roles: ["member"] });
    orgId = first.body.org_id;
    const again = await post(hook, "/_internal/oidc/sync", login);
    expect(again.body).toMatchObject({
      org_id: orgId,
      internal_user_id: first.body.internal_user_id,
      connection: "",
    });
    const counts = await sql<{ users: number; orgs: number }>`
      select (select count(*)::int from identity.users where subject = ${login.user_id}) as users,
             (select count(*)::int from identity.orgs where external_id = 'org_acme') as orgs`.execute(
      p.platform.db.db,
    );
    expect(counts.rows[0]).toEqual({ users: 1, orgs: 1 });
  });

  it("syncs nothing without an active connection of that kind", async () => {
    const res = await post(hook, "/_internal/idp/sync-groups", {
      user_id: login.user_id,
      idp_organization_id: "org_acme",
      connection_kind: "generic_oidc",
      external_groups: ["traders"],
    });
    expect(res.body).toMatchObject({ no_active_connection: true, memberships_upserted: 0 });
  });

  it("maps groups to roles, audited, and memberships follow the user's groups", async () => {
    const mapping = (external_group: string, role: string, scope_id = "desk-1") =>
      call(
        p.url,
        "POST",
        `/tenancy/orgs/${orgId}/idp-group-mappings`,
        { connection_kind: "generic_oidc", external_group, scope_kind: "team", scope_id, role },
        { authorization: `Bearer ${admin}` },
      );
    const traders = await mapping("traders", "trader");
    expect(traders.status, traders.text).toBe(201);
    expect((await mapping("risk", "approver")).status).toBe(201);
    expect((await mapping("traders", "trader")).body.error.code).toBe("mapping_exists");
    await sql`insert into identity.idp_connections (id, org_id, connection_kind, name, status)
              values (gen_random_uuid(), ${orgId}, 'generic_oidc', 'acme-okta', 'active')`.execute(
      p.platform.db.db,
    );

    const sync = (external_groups: string[]) =>
      post(hook, "/_internal/idp/sync-groups", {
        user_id: login.user_id,
        idp_organization_id: "org_acme",
        connection_kind: "generic_oidc",
        external_groups,
      });
    expect((await sync([" traders ", "risk", "traders", ""])).body).toMatchObject({
      memberships_upserted: 2,
      memberships_removed: 0,
    });
    expect((await sync(["traders", "risk"])).body).toMatchObject({ memberships_upserted: 0 });

    const carol = await o.tokens.user("carol");
    const whoami = async () =>
      (await call(p.url, "GET", "/auth/whoami", undefined, { authorization: `Bearer ${carol}` }))
        .body.memberships;
    expect(await whoami()).toEqual([
      { scope_kind: "org", scope_id: orgId, role: "member" },
      { scope_kind: "team", scope_id: "desk-1", role: "approver" },
      { scope_kind: "team", scope_id: "desk-1", role: "trader" },
    ]);

    // Carol leaves the risk group: the approver role it granted goes, the rest stays.
    expect((await sync(["traders"])).body).toMatchObject({
      memberships_upserted: 0,
      memberships_removed: 1,
    });
    expect((await whoami()).map((m: { role: string }) => m.role)).toEqual(["member", "trader"]);
    const claims = await post(hook, "/_internal/oidc/sync", login);
    expect(claims.body).toMatchObject({ team_id: "desk-1", roles: ["member", "trader"] });

    const audit = await call(p.url, "GET", "/admin/audit-events", undefined, {
      authorization: `Bearer ${admin}`,
    });
    const actions = audit.body.items.map((e: { action: string }) => e.action);
    expect(actions.filter((a: string) => a === "idp_group_mapping_created")).toHaveLength(2);
    expect(actions.filter((a: string) => a === "identity.memberships.synced")).toHaveLength(2);
  });

  it("lists and deletes mappings under admin:tenant, and refuses what it cannot find or may not", async () => {
    const auth = { authorization: `Bearer ${admin}` };
    const listed = await call(
      p.url,
      "GET",
      `/tenancy/orgs/${orgId}/idp-group-mappings`,
      undefined,
      auth,
    );
    expect(listed.body.items.map((m: { external_group: string }) => m.external_group)).toEqual([
      "traders",
      "risk",
    ]);
    const id = listed.body.items[1].id;
    expect(
      (
        await call(
          p.url,
          "DELETE",
          `/tenancy/orgs/${orgId}/idp-group-mappings/${id}`,
          undefined,
          auth,
        )
      ).body,
    ).toEqual({ deleted: true });
    const again = await call(
      p.url,
      "DELETE",
      `/tenancy/orgs/${orgId}/idp-group-mappings/${id}`,
      undefined,
      auth,
    );
    expect([again.status, again.body.error.code]).toEqual([404, "mapping_not_found"]);
    const noOrg = await call(
      p.url,
      "GET",
      "/tenancy/orgs/not-a-uuid/idp-group-mappings",
      undefined,
      auth,
    );
    expect([noOrg.status, noOrg.body.error.code]).toEqual([404, "org_not_found"]);
    const trader = await o.tokens.user("trader", { mfa: true });
    const refused = await call(
      p.url,
      "GET",
      `/tenancy/orgs/${orgId}/idp-group-mappings`,
      undefined,
      {
        authorization: `Bearer ${trader}`,
      },
    );
    expect([refused.status, refused.body.error.code]).toEqual([403, "missing_scope"]);
    const nul = await call(
      p.url,
      "POST",
      `/tenancy/orgs/${orgId}/idp-group-mappings`,
      {
        connection_kind: "generic_oidc",
        external_group: "a\u0000b",
        scope_kind: "team",
        scope_id: "x",
        role: "r",
      },
      auth,
    );
    expect(nul.status).toBe(400);
    const kindless = await call(
      p.url,
      "POST",
      `/tenancy/orgs/${orgId}/idp-group-mappings`,
      { external_group: "ops", scope_kind: "team", scope_id: "x", role: "r" },
      auth,
    );
    expect([kindless.status, kindless.body.error.details.field]).toEqual([400, "connection_kind"]);
  });

  it("strict enforcement refuses a person without membership rows until a login syncs them", async () => {
    // The post-login action fails open: with the platform out of its reach dora still signs in,
    // but nothing provisions her.
    o.idp.setApiUrl("http://127.0.0.1:1");
    let dora: string;
    try {
      dora = await o.tokens.user("dora");
    } finally {
      o.idp.setApiUrl(p.url);
    }
    const get = () => call(p.url, "GET", "/bots", undefined, { authorization: `Bearer ${dora}` });
    const refused = await get();
    expect([refused.status, refused.body.error.code]).toEqual([403, "membership_required"]);
    // A sign-in the action can sync makes her a member; the token she already holds then works.
    await o.tokens.user("dora", { fresh: true });
    // A non-member is remembered two seconds at most.
    await eventually("the new member gets in", get, (r) => r.status === 200, 5_000);
  });
});

describe("permissive enforcement", () => {
  it(
    "lets a person without membership rows read, never write",
    async () => {
      const o = await startOidcPlatform("pglite", [testUser("erin", ["read:bots", "write:bots"])], {
        SVC_AUTH_ENFORCE: "permissive",
      });
      try {
        // Out of the post-login action's reach, erin signs in without being provisioned.
        o.idp.setApiUrl("http://127.0.0.1:1");
        const auth = { authorization: `Bearer ${await o.tokens.user("erin")}` };
        o.idp.setApiUrl(o.p.url);
        expect((await call(o.p.url, "GET", "/bots", undefined, auth)).status).toBe(200);
        const write = await call(o.p.url, "POST", "/bots", { name: "x", kind: "trading" }, auth);
        expect([write.status, write.body.error.code]).toEqual([403, "membership_required"]);
      } finally {
        await o.close();
      }
    },
    PLATFORM_START_TIMEOUT_MS,
  );
});
