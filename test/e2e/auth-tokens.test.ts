import { createHmac } from "node:crypto";
import { sql } from "kysely";
import type { JWTPayload } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshMfaClaims, startTestIdp, type TestIdp } from "@svc/lib/auth/testing";
import type { RunningPlatform } from "@svc/all-in-one";
import { call, startTestPlatform, PLATFORM_START_TIMEOUT_MS } from "../support/test-platform.js";
import { grantMembership } from "../support/memberships.js";

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString("base64url");
const now = () => Math.floor(Date.now() / 1000);
const M2M_AUDIENCE = "https://internal.svc.test";

/** Routes the attack list runs against: the post-login action's two and an MCP tool's. */
const ATTACK_ROUTES: Array<
  [string, (user: string) => Record<string, unknown>, "machine" | "agent"]
> = [
  ["/_internal/oidc/sync", (user) => ({ user_id: user, email: "a@b.c" }), "machine"],
  [
    "/_internal/idp/sync-groups",
    (user) => ({
      user_id: user,
      idp_organization_id: "org_attack",
      connection_kind: "generic_oidc",
      external_groups: ["traders"],
    }),
    "machine",
  ],
  ["/mcp/data/tools/bots.list/invoke", () => ({}), "agent"],
];

function oidcEnv(idp: TestIdp): Record<string, string> {
  return {
    SVC_AUTH_PROVIDER: "oidc",
    SVC_AUTH_OIDC_ISSUER: idp.issuer,
    SVC_AUTH_OIDC_AUDIENCE: idp.audience,
    SVC_AUTH_M2M_ENABLED: "true",
    SVC_AUTH_M2M_AUDIENCE: M2M_AUDIENCE,
    SVC_AUTH_AGENT_TOKEN_EXCHANGE_ENABLED: "true",
  };
}

describe("the auth interceptor, through the gateway, with tokens from a local JWKS", () => {
  let idp: TestIdp;
  let p: RunningPlatform;
  const get = (token: string | undefined, path = "/bots") =>
    call(p.url, "GET", path, undefined, token ? { authorization: `Bearer ${token}` } : {});
  const post = (token: string, path: string, body: unknown = {}) =>
    call(p.url, "POST", path, body, { authorization: `Bearer ${token}` });

  beforeAll(async () => {
    idp = await startTestIdp();
    p = await startTestPlatform("pglite", oidcEnv(idp));
    await grantMembership(p, "u", "user|alice", "user|bob", "warm");
  });
  afterAll(async () => {
    await p?.close();
    await idp?.stop();
  });

  const expectInvalid = async (token: string, reason: RegExp) => {
    const res = await get(token);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("invalid_token");
    expect(res.body.error.message).toMatch(reason);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer error="invalid_token"/);
  };

  it("accepts a valid token and names the caller", async () => {
    const token = await idp.sign({
      sub: "user|alice",
      permissions: ["read:bots"],
      "https://svc.example/claims/org_id": "org-1",
    });
    expect((await get(token)).status).toBe(200);
    const me = await get(token, "/auth/whoami");
    expect(me.body).toMatchObject({
      sub: "user|alice",
      actor_type: "user",
      org_id: "org-1",
      scopes: ["read:bots"],
    });
    const es = await idp.sign({ sub: "user|alice", permissions: ["read:bots"] }, { alg: "ES256" });
    expect((await get(es)).status).toBe(200);
  });

  it("refuses a missing or malformed Authorization header with 401 and a challenge", async () => {
    const none = await get(undefined);
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe("unauthenticated");
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="svc"');
    expect(
      (await call(p.url, "GET", "/bots", undefined, { authorization: "Basic dXNlcjpwdw==" }))
        .status,
    ).toBe(401);
  });

  it("refuses expired, exp-less, not-yet-valid, foreign-issuer and foreign-audience tokens", async () => {
    await expectInvalid(
      await idp.sign({ sub: "u", permissions: ["read:bots"], exp: now() - 60 }),
      /expired/,
    );
    await expectInvalid(
      await idp.sign({ sub: "u", permissions: ["read:bots"] }, { expiresIn: null }),
      /lacks the required exp claim/,
    );
    await expectInvalid(
      await idp.sign({ sub: "u", permissions: ["read:bots"], nbf: now() + 600 }),
      /not valid yet/,
    );
    // Minted to outlive a revocation or by a provider with a wrong clock: no skew explains a day.
    await expectInvalid(
      await idp.sign({ sub: "u", permissions: ["read:bots"], iat: now() + 86_400 }),
      /issued in the future/,
    );
    await expectInvalid(
      await idp.sign({ sub: "u", permissions: ["read:bots"], iss: "https://evil.example" }),
      /another issuer/,
    );
    await expectInvalid(
      await idp.sign({ sub: "u", permissions: ["read:bots"], aud: "https://other-api" }),
      /another audience/,
    );
  });

  it("refuses alg none and an HS256 token keyed with the public key", async () => {
    const claims = {
      sub: "u",
      permissions: ["read:bots"],
      iss: idp.issuer,
      aud: idp.audience,
      exp: now() + 600,
    };
    await expectInvalid(
      `${b64({ alg: "none", typ: "JWT" })}.${b64(claims)}.`,
      /algorithm is not allowed|malformed/,
    );
    const header = b64({ alg: "HS256", typ: "JWT", kid: "rsa-1" });
    const body = b64(claims);
    const mac = createHmac("sha256", idp.publicKeyPem)
      .update(`${header}.${body}`)
      .digest("base64url");
    await expectInvalid(`${header}.${body}.${mac}`, /algorithm is not allowed/);
  });

  it("refuses unknown and injected kids without a fetch storm on the JWKS endpoint", async () => {
    await get(await idp.sign({ sub: "warm", permissions: ["read:bots"] }, { kid: "rsa-1" }));
    const before = idp.hits();
    for (let i = 0; i < 50; i++) {
      const kid = i % 2 === 0 ? "../../x" : `unknown-${i}`;
      const res = await get(await idp.sign({ sub: `u${i}`, permissions: ["read:bots"] }, { kid }));
      expect(res.status).toBe(401);
    }
    expect(idp.hits() - before).toBeLessThanOrEqual(1);
  });

  it("names the missing scope with 403", async () => {
    const res = await get(await idp.sign({ sub: "u", permissions: ["read:promotion"] }));
    expect(res.status).toBe(403);
    expect(res.body.error).toEqual({
      code: "missing_scope",
      message: "the token lacks the scope read:bots",
      details: { scope: "read:bots", required: ["read:bots"] },
    });
  });

  it("asks for step-up (RFC 9470) on a stale or single-factor token, and lets a fresh MFA token through", async () => {
    await call(
      p.url,
      "POST",
      "/bots",
      { name: "Step", kind: "trading" },
      { authorization: `Bearer ${await idp.sign({ sub: "u", permissions: ["write:bots"] })}` },
    );
    const stale = await post(
      await idp.sign(freshMfaClaims("u", ["halt:bots"], { auth_time: now() - 600 })),
      "/bots/step/halt",
    );
    expect(stale.status).toBe(401);
    expect(stale.body.error.code).toBe("insufficient_user_authentication");
    expect(stale.body.error.message).toMatch(
      /no older than 180 seconds; yours is 6\d\d seconds old/,
    );
    const challenge = stale.headers.get("www-authenticate")!;
    expect(challenge).toMatch(/^Bearer error="insufficient_user_authentication"/);
    expect(challenge).toContain(
      'acr_values="http://schemas.openid.net/pape/policies/2007/06/multi-factor"',
    );
    expect(challenge).toContain("max_age=0");
    const noMfa = await post(
      await idp.sign({ sub: "u", permissions: ["halt:bots"], amr: ["pwd"], auth_time: now() }),
      "/bots/step/halt",
    );
    expect(noMfa.status).toBe(401);
    expect(noMfa.body.error.message).toMatch(/multi-factor/);
    const fresh = await post(await idp.sign(freshMfaClaims("u", ["halt:bots"])), "/bots/step/halt");
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({ scope: "bot", halted: 0 });
  });

  it("keeps delegated agent tokens to the routes that allow agents", async () => {
    const agent = await idp.sign({
      sub: "user|bob",
      permissions: ["read:bots", "write:bots"],
      act: { sub: "agent|research-1", iss: idp.issuer },
      svc_delegated: true,
    });
    const refused = await post(agent, "/bots", { name: "By agent", kind: "trading" });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("agent_not_allowed");
    const me = await get(agent, "/whoami");
    expect(me.body).toMatchObject({
      sub: "user|bob",
      actor_type: "agent",
      on_behalf_of_sub: "user|bob",
    });
  });

  it("checks machine tokens on the internal sync routes, audience included", async () => {
    const body = { user_id: "auth0|1", email: "a@b.c" };
    const wrongAud = await post(
      await idp.sign({ sub: "hook@clients", gty: "client-credentials" }),
      "/_internal/oidc/sync",
      body,
    );
    expect(wrongAud.status).toBe(401);
    expect(wrongAud.body.error.message).toMatch(/SVC_AUTH_M2M_AUDIENCE/);
    const userToken = await post(
      await idp.sign({ sub: "user|alice", aud: "https://internal.svc.test" }),
      "/_internal/oidc/sync",
      body,
    );
    expect(userToken.status).toBe(403);
    expect(userToken.body.error.code).toBe("machine_token_required");
    const machine = await post(
      await idp.sign({
        sub: "hook@clients",
        gty: "client-credentials",
        aud: "https://internal.svc.test",
      }),
      "/_internal/oidc/sync",
      body,
    );
    expect(machine.status, machine.text).toBe(200);
    expect(machine.body.internal_user_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  /**
   * The attack list again, on the routes the post-login action and the agents call: each route
   * first takes the well-formed token the attacks are made from, so a refusal is the attack's.
   */
  describe.each(ATTACK_ROUTES)("the token attack list on %s", (path, body, kind) => {
    const base = (): JWTPayload =>
      kind === "machine"
        ? { sub: "hook@clients", gty: "client-credentials", aud: M2M_AUDIENCE }
        : {
            sub: "user|bob",
            permissions: ["read:mcp:data"],
            act: { sub: "agent|research-1", iss: idp.issuer },
            svc_delegated: true,
          };
    const attacks = (): Array<[string, () => Promise<string>, RegExp]> => [
      ["expired", () => idp.sign({ ...base(), exp: now() - 60 }), /expired/],
      ["without exp", () => idp.sign(base(), { expiresIn: null }), /lacks the required exp/],
      ["not yet valid", () => idp.sign({ ...base(), nbf: now() + 600 }), /not valid yet/],
      [
        "from another issuer",
        () => idp.sign({ ...base(), iss: "https://evil.example" }),
        /another issuer/,
      ],
      [
        "for another audience",
        () => idp.sign({ ...base(), aud: "https://other-api" }),
        kind === "machine" ? /SVC_AUTH_M2M_AUDIENCE/ : /another audience/,
      ],
      [
        "alg none",
        async () =>
          `${b64({ alg: "none", typ: "JWT" })}.${b64({ ...base(), iss: idp.issuer, aud: base().aud ?? idp.audience, exp: now() + 600 })}.`,
        /algorithm is not allowed|malformed/,
      ],
      [
        "HS256 keyed with the public key",
        async () => {
          const header = b64({ alg: "HS256", typ: "JWT", kid: "rsa-1" });
          const claims = b64({
            ...base(),
            iss: idp.issuer,
            aud: base().aud ?? idp.audience,
            exp: now() + 600,
          });
          const mac = createHmac("sha256", idp.publicKeyPem)
            .update(`${header}.${claims}`)
            .digest("base64url");
          return `${header}.${claims}.${mac}`;
        },
        /algorithm is not allowed/,
      ],
      ["with an unknown kid", () => idp.sign(base(), { kid: "unknown-kid" }), /no signing key/],
      ["with an injected kid", () => idp.sign(base(), { kid: "../../x" }), /no signing key/],
      [
        "signed by an unpublished key under a published kid",
        () => idp.sign(base(), { key: "rotated", kid: "rsa-1" }),
        /signature does not verify/,
      ],
      [
        "with act a string",
        () => idp.sign({ ...base(), act: "agent|research-1" }),
        /the act claim is invalid/,
      ],
      [
        "with an act naming no one",
        () => idp.sign({ ...base(), act: { iss: idp.issuer } }),
        /the act claim is invalid/,
      ],
      [
        "with an act naming a person",
        () => idp.sign({ ...base(), act: { sub: "user|mallory", iss: idp.issuer } }),
        /the act claim is invalid/,
      ],
      [
        "with an act from another issuer",
        () =>
          idp.sign({ ...base(), act: { sub: "agent|research-1", iss: "https://evil.example" } }),
        /the act claim is invalid/,
      ],
    ];

    it("takes the well-formed token, and refuses every attack on it with 401 invalid_token", async () => {
      const control = await post(await idp.sign(base()), path, body("auth0|control"));
      expect(control.status, control.text).toBe(200);
      for (const [attack, token, reason] of attacks()) {
        const res = await post(await token(), path, body("auth0|attacker"));
        expect(res.status, `${attack}: ${res.text}`).toBe(401);
        expect(res.body.error.code, attack).toBe("invalid_token");
        expect(res.body.error.message, attack).toMatch(reason);
        expect(res.headers.get("www-authenticate"), attack).toMatch(
          /^Bearer error="invalid_token"/,
        );
      }
      if (kind === "machine") {
        const provisioned = await sql<{ n: number }>`
          select count(*)::int as n from identity.users where subject = 'auth0|attacker'`.execute(
          p.platform.db.db,
        );
        expect(provisioned.rows[0]?.n).toBe(0);
      }
    });
  });
});

describe("an unreachable JWKS endpoint", () => {
  it(
    "fails every authenticated request with jwks_unreachable",
    async () => {
      const idp = await startTestIdp();
      const p = await startTestPlatform("pglite", oidcEnv(idp));
      try {
        const token = await idp.sign({ sub: "u", permissions: ["read:bots"] });
        await idp.stop();
        const res = await call(p.url, "GET", "/bots", undefined, {
          authorization: `Bearer ${token}`,
        });
        expect(res.status).toBe(503);
        expect(res.body.error.code).toBe("jwks_unreachable");
        expect((await call(p.url, "GET", "/healthz")).status).toBe(200);
      } finally {
        await p.close();
      }
    },
    PLATFORM_START_TIMEOUT_MS,
  );
});

describe("local auth", () => {
  it(
    "acts as the local-default user, or as the one x-svc-local-user names, and refuses bearer tokens",
    async () => {
      const p = await startTestPlatform("pglite");
      try {
        expect((await call(p.url, "GET", "/whoami")).body.sub).toBe("local|default");
        expect(
          (await call(p.url, "GET", "/whoami", undefined, { "x-svc-local-user": "alice" })).body
            .sub,
        ).toBe("local|alice");
        expect(
          (await call(p.url, "GET", "/whoami", undefined, { "x-svc-local-user": "Not Valid!" }))
            .status,
        ).toBe(400);
        const bearer = await call(p.url, "GET", "/bots", undefined, {
          authorization: "Bearer abc.def.ghi",
        });
        expect(bearer.status).toBe(401);
        expect(bearer.body.error.message).toMatch(/SVC_AUTH_PROVIDER=local/);
      } finally {
        await p.close();
      }
    },
    PLATFORM_START_TIMEOUT_MS,
  );

  it(
    "refuses to listen on a non-loopback address",
    async () => {
      await expect(startTestPlatform("pglite", { SVC_HOST: "0.0.0.0" })).rejects.toThrow(
        /only listens on loopback/,
      );
    },
    PLATFORM_START_TIMEOUT_MS,
  );
});
