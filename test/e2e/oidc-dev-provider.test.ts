import { sql } from "kysely";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MFA_ACR } from "@svc/lib/auth";
import { call } from "../support/test-platform.js";
import {
  CLAIMS_NAMESPACE,
  startOidcPlatform,
  testUser,
  type OidcPlatform,
} from "../support/oidc-platform.js";
import { eventually } from "../support/until.js";

const TRADER = [
  "read:bots",
  "write:bots",
  "halt:bots",
  "halt:platform",
  "read:killswitch",
  "read:mcp:data",
];
const claim = (token: string, name: string) => decodeJwt(token)[`${CLAIMS_NAMESPACE}${name}`];

/**
 * The platform under OIDC against the development provider, every token got over HTTP the way a
 * browser, a machine or the agent broker gets it; the provider runs the post-login action we ship,
 * which calls this platform's sync routes at each sign-in.
 */
describe("OIDC against the development provider", () => {
  let o: OidcPlatform;
  const alice = testUser("alice", TRADER, { groups: ["traders", "research"] });
  const admin = testUser("admin", ["admin:tenant", "read:audit", "read:bots"]);
  const eve = testUser("eve", ["read:bots", "write:bots"]);
  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  const signInAs = async (user: typeof alice, resource: string) =>
    (await import("@svc/dev-idp")).signIn({
      issuer: o.idp.issuer,
      clientId: o.idp.clients.login.clientId,
      redirectUri: "http://127.0.0.1/auth/callback",
      username: user.username,
      password: user.password,
      resource,
    });

  beforeAll(async () => {
    o = await startOidcPlatform("pglite", [alice, admin, eve]);
  }, 60_000);
  afterAll(async () => {
    await o?.close();
  });

  it("a password sign-in is refused step-up with the RFC 9470 challenge; a TOTP sign-in passes it", async () => {
    const password = await o.tokens.user("alice");
    expect(decodeJwt(password)).toMatchObject({ sub: "dev|alice", amr: ["pwd"] });
    expect(decodeJwt(password).acr).toBeUndefined();
    const refused = await call(o.p.url, "POST", "/bots/halt-all", {}, as(password));
    expect(refused.status, refused.text).toBe(401);
    expect(refused.body.error.code).toBe("insufficient_user_authentication");
    expect(refused.headers.get("www-authenticate")).toMatch(
      new RegExp(
        `^Bearer error="insufficient_user_authentication", error_description="[^"]+", acr_values="${MFA_ACR.replace(/[./]/g, "\\$&")}", max_age=0$`,
      ),
    );

    const mfa = await o.tokens.user("alice", { mfa: true });
    const claims = decodeJwt(mfa);
    expect(claims).toMatchObject({ sub: "dev|alice", acr: MFA_ACR, amr: ["pwd", "otp", "mfa"] });
    expect(Math.abs(Number(claims.auth_time) - Date.now() / 1000)).toBeLessThan(30);
    const halted = await call(o.p.url, "POST", "/bots/halt-all", {}, as(mfa));
    expect(halted.status, halted.text).toBe(200);
  });

  it("a wrong or replayed authenticator code is refused by the provider", async () => {
    const { signIn, SignInError } = await import("@svc/dev-idp");
    const attempt = (code: string) =>
      signIn({
        issuer: o.idp.issuer,
        clientId: o.idp.clients.login.clientId,
        redirectUri: "http://127.0.0.1/auth/callback",
        username: "alice",
        password: alice.password,
        resource: "https://api.svc.test",
        acrValues: MFA_ACR,
        maxAge: 0,
        totp: async () => code,
      });
    await expect(attempt("000000")).rejects.toBeInstanceOf(SignInError);
    const { generate } = await import("otplib");
    const used = await generate({
      secret: alice.totpSecret,
      epoch: Math.floor(Date.now() / 1000) - 30,
    });
    await expect(attempt(used)).rejects.toThrow(/401/);
  });

  it("the post-login action provisions the person once and puts the same claims in every token", async () => {
    const first = await o.tokens.user("alice");
    const second = await o.tokens.user("alice", { mfa: true });
    expect(claim(first, "internal_user_id")).toEqual(expect.any(String));
    expect(claim(second, "internal_user_id")).toBe(claim(first, "internal_user_id"));
    expect(claim(second, "org_id")).toBe(claim(first, "org_id"));
    expect(claim(first, "connection")).toBe("test-oidc");
    const rows = await sql<{ n: number }>`
      select count(*)::int as n from identity.users where subject = 'dev|alice'`.execute(
      o.p.platform.db.db,
    );
    expect(rows.rows[0]?.n).toBe(1);
    const me = await call(o.p.url, "GET", "/auth/whoami", undefined, as(second));
    expect(me.body.memberships).toContainEqual(
      expect.objectContaining({
        scope_kind: "org",
        scope_id: claim(first, "org_id"),
        role: "member",
      }),
    );
  });

  it("group sync: nothing without an active connection; mapped roles once one is active; gone when the group is left", async () => {
    const orgId = String(claim(await o.tokens.user("alice"), "org_id"));
    const adminToken = await o.tokens.user("admin", { mfa: true });
    const mapped = await call(
      o.p.url,
      "POST",
      `/tenancy/orgs/${orgId}/idp-group-mappings`,
      {
        connection_kind: "generic_oidc",
        external_group: "traders",
        scope_kind: "org",
        scope_id: orgId,
        role: "trader",
      },
      as(adminToken),
    );
    expect(mapped.status, mapped.text).toBe(201);
    const roles = async () => {
      const token = await o.tokens.user("alice", { fresh: true });
      const me = await call(o.p.url, "GET", "/auth/whoami", undefined, as(token));
      return (me.body.memberships as Array<{ role: string }>).map((m) => m.role).sort();
    };
    expect(await roles()).toEqual(["member"]);

    await sql`insert into identity.idp_connections (id, org_id, connection_kind, name, status)
              values (gen_random_uuid(), ${orgId}, 'generic_oidc', 'test-oidc', 'active')`.execute(
      o.p.platform.db.db,
    );
    expect(await roles()).toEqual(["member", "trader"]);

    // With no group left the action makes no call (the spec's rule), so alice keeps one.
    alice.groups = ["research"];
    try {
      expect(await roles()).toEqual(["member"]);
    } finally {
      alice.groups = ["traders", "research"];
    }
  });

  it("strict enforcement: a person the action could not sync is refused until a sign-in provisions them", async () => {
    o.idp.setApiUrl("http://127.0.0.1:1");
    let unsynced: string;
    try {
      unsynced = await o.tokens.user("eve");
    } finally {
      o.idp.setApiUrl(o.p.url);
    }
    expect(claim(unsynced, "internal_user_id")).toBeUndefined();
    const refused = await call(o.p.url, "GET", "/bots", undefined, as(unsynced));
    expect(refused.status, refused.text).toBe(403);
    expect(refused.body.error.code).toBe("membership_required");

    const { signIn } = await import("@svc/dev-idp");
    const synced = await signIn({
      issuer: o.idp.issuer,
      clientId: o.idp.clients.login.clientId,
      redirectUri: "http://127.0.0.1/auth/callback",
      username: "eve",
      password: eve.password,
      resource: "https://api.svc.test",
    });
    // The identity service remembers a non-member for 2 s; the sign-in made eve one.
    await eventually(
      "eve is let in once her sign-in provisioned her",
      () => call(o.p.url, "GET", "/bots", undefined, as(synced.accessToken)),
      (r) => r.status === 200,
      5_000,
    );
  });

  it("a person cannot ask the provider for a permission no role of theirs grants", async () => {
    const { signIn } = await import("@svc/dev-idp");
    const { accessToken } = await signIn({
      issuer: o.idp.issuer,
      clientId: o.idp.clients.login.clientId,
      redirectUri: "http://127.0.0.1/auth/callback",
      username: "eve",
      password: eve.password,
      resource: "https://api.svc.test",
      scope: "openid email read:audit write:bots",
    });
    expect(String(decodeJwt(accessToken).scope ?? "").split(" ")).not.toContain("read:audit");
    const audit = await call(o.p.url, "GET", "/admin/audit-events", undefined, as(accessToken));
    expect(audit.status, audit.text).toBe(403);
    expect(audit.body.error.code).toBe("missing_scope");
  });

  it("machine tokens: the sync route takes the machine audience only", async () => {
    const body = { user_id: "dev|someone", email: "someone@svc.test" };
    const m2m = await o.tokens.machine("https://internal.svc.test", "postLoginHook");
    expect(decodeJwt(m2m)).toMatchObject({
      gty: "client-credentials",
      aud: "https://internal.svc.test",
    });
    expect((await call(o.p.url, "POST", "/_internal/oidc/sync", body, as(m2m))).status).toBe(200);
    const apiAudience = await o.tokens.machine();
    expect(
      (await call(o.p.url, "POST", "/_internal/oidc/sync", body, as(apiAudience))).status,
    ).toBe(401);
  });

  it("token exchange: a delegated token reads MCP tools as the agent for the person, audited", async () => {
    const person = await o.tokens.user("alice");
    const exchanged = await o.tokens.exchange(person);
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    const delegated = String(exchanged.body.access_token);
    expect(decodeJwt(delegated)).toMatchObject({
      sub: "dev|alice",
      act: { sub: "agent|research", iss: o.idp.issuer },
      svc_delegated: true,
      scope: "read:mcp:data",
    });
    const listed = await call(
      o.p.url,
      "POST",
      "/mcp/data/tools/bots.list/invoke",
      {},
      as(delegated),
    );
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.actor).toEqual({
      agent_subject: "agent|research",
      on_behalf_of_sub: "dev|alice",
    });

    // alice may read MCP data, not write it: an agent gets no more than she holds.
    const writeOnly = await o.tokens.exchange(person, { scope: "write:mcp:data" });
    expect(writeOnly).toMatchObject({ status: 400, body: { error: "invalid_scope" } });

    const auditor = await o.tokens.user("admin", { mfa: true });
    await eventually(
      "the MCP call is in the audit trail with its delegation",
      () =>
        call(
          o.p.url,
          "GET",
          "/admin/audit-events?action=mcp.tool.bots.list",
          undefined,
          as(auditor),
        ),
      (r) =>
        (r.body?.items ?? []).some(
          (e: { details?: { delegation?: { agent_subject?: string } } }) =>
            e.details?.delegation?.agent_subject === "agent|research",
        ),
      10_000,
    );
  });

  it("token exchange refuses with the spec's errors", async () => {
    const person = await o.tokens.user("alice");
    const profile = await o.tokens.exchange(person, { subject_token_profile: "other" });
    expect(profile).toMatchObject({ status: 400, body: { error: "invalid_request" } });
    expect(String(profile.body.error_description)).toContain("profile not found");

    const noGrant = await o.tokens.exchange(person, {}, "machine");
    expect(noGrant).toMatchObject({ status: 400, body: { error: "unauthorized_client" } });

    const scope = await o.tokens.exchange(person, { scope: "read:mcp:data admin:tenant" });
    expect(scope).toMatchObject({ status: 400, body: { error: "invalid_target" } });
    expect(String(scope.body.error_description)).toContain("scope rejected");

    const notAnAgent = await o.tokens.exchange(person, {
      actor_token: await o.tokens.machine(),
    });
    expect(notAnAgent).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    expect(String(notAnAgent.body.error_description)).toContain("agent|");
  });

  it("token exchange mints nothing from a token that is not a person's own access token for the API", async () => {
    const both = { scope: "read:mcp:data write:mcp:data" };
    const person = await o.tokens.user("alice");
    const delegated = String((await o.tokens.exchange(person)).body.access_token);
    const { idToken } = await signInAs(alice, "https://api.svc.test");
    const otherAudience = (await signInAs(alice, "https://internal.svc.test")).accessToken;
    const subjects: Array<[string, string, RegExp]> = [
      ["a machine's token, which holds no permission", await o.tokens.machine(), /machine/],
      ["the agent's own token", await o.tokens.machine(undefined, "agent"), /machine|agent/],
      ["a delegated token, to re-delegate it wider", delegated, /already delegated/],
      ["a person's ID token", String(idToken), /does not verify|audience/],
      ["a person's token for another audience", otherAudience, /API audience/],
    ];
    for (const [what, subject, why] of subjects) {
      const res = await o.tokens.exchange(subject, both);
      expect(res, what).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
      expect(String(res.body.error_description), what).toMatch(why);
    }
  });

  it("token exchange grants only the requested scopes the person holds", async () => {
    const person = await o.tokens.user("alice");
    const res = await o.tokens.exchange(person, { scope: "read:mcp:data write:mcp:data" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.scope).toBe("read:mcp:data");
    expect(decodeJwt(String(res.body.access_token))).toMatchObject({
      scope: "read:mcp:data",
      permissions: ["read:mcp:data"],
    });
  });

  it("a person who lost a permission cannot keep using it through an agent", async () => {
    const before = await o.tokens.user("alice", { fresh: true });
    const delegated = String((await o.tokens.exchange(before)).body.access_token);
    const invoke = () =>
      call(o.p.url, "POST", "/mcp/data/tools/bots.list/invoke", {}, as(delegated));
    expect((await invoke()).status).toBe(200);

    // An administrator takes read:mcp:data away from alice at the provider.
    alice.permissions = TRADER.filter((p) => p !== "read:mcp:data");
    try {
      // Her old token still says she holds it: the provider delegates what she holds now.
      const again = await o.tokens.exchange(before);
      expect(again).toMatchObject({ status: 400, body: { error: "invalid_scope" } });

      // Her next token tells the platform; the delegation minted before loses the scope.
      const after = await o.tokens.user("alice", { fresh: true });
      expect((await call(o.p.url, "GET", "/auth/whoami", undefined, as(after))).status).toBe(200);
      const refused = await invoke();
      expect(refused.status, refused.text).toBe(403);
      expect(refused.body.error.code).toBe("delegated_scope_revoked");
      expect(refused.body.error.message).toContain("read:mcp:data");
    } finally {
      // Restored at the provider, and shown to the platform, for whatever runs after.
      alice.permissions = TRADER;
      const restored = await o.tokens.user("alice", { fresh: true });
      await call(o.p.url, "GET", "/auth/whoami", undefined, as(restored));
    }
  });
});
