import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineAuthSettings, MFA_ACR, type AuthSettings } from "./index.js";
import {
  createAuthHarness,
  createTestTokens,
  hmacWithPublicKeyToken,
  refusal,
  startTestIdp,
  unsignedToken,
  withBearer,
  type AuthHarness,
  type TestIdp,
  type TestTokens,
} from "./testing/index.js";

const M2M_AUDIENCE = "https://internal.svc.test";
const NS = "https://svc.example/claims/";
const now = () => Math.floor(Date.now() / 1000);

function oidcSettings(idp: TestIdp, over: Partial<AuthSettings> = {}): AuthSettings {
  return defineAuthSettings({
    provider: "oidc",
    issuer: idp.issuer,
    audience: idp.audience,
    claimsNamespace: NS,
    m2mEnabled: true,
    m2mAudience: M2M_AUDIENCE,
    agentTokensEnabled: true,
    ...over,
  });
}

describe("the auth interceptor with OIDC tokens", () => {
  let idp: TestIdp;
  let tokens: TestTokens;
  let h: AuthHarness;

  beforeAll(async () => {
    idp = await startTestIdp();
    tokens = createTestTokens(idp);
    h = createAuthHarness(oidcSettings(idp));
  });
  afterAll(() => idp.stop());

  const expectInvalid = async (token: string, why: RegExp) => {
    const r = await refusal(h.bots.getBot({ botRef: "b" }, withBearer(token)));
    expect(r.code).toBe(Code.Unauthenticated);
    expect(r.machineCode).toBe("invalid_token");
    expect(r.message).toMatch(why);
    expect(r.header("www-authenticate")).toMatch(
      /^Bearer error="invalid_token", error_description="[^"]+"$/,
    );
    expect(r.header("www-authenticate")).toMatch(why);
  };

  it("lets a valid RS256 or ES256 token through and hands the handler its principal", async () => {
    await h.bots.getBot(
      { botRef: "b" },
      withBearer(
        await tokens.user("user|alice", ["read:bots"], {
          [`${NS}org_id`]: "org-1",
          [`${NS}user_id`]: "42",
        }),
      ),
    );
    expect(h.seen.at(-1)).toMatchObject({
      sub: "user|alice",
      actorType: "user",
      orgId: "org-1",
      internalUserId: "42",
      scopes: ["read:bots"],
      delegated: false,
    });
    await h.bots.getBot(
      { botRef: "b" },
      withBearer(
        await idp.sign({ sub: "user|alice", scope: "read:bots write:bots" }, { alg: "ES256" }),
      ),
    );
    expect(h.seen.at(-1)?.scopes).toEqual(["read:bots", "write:bots"]);
  });

  it("refuses a missing or malformed Authorization header with 401 and the Bearer challenge", async () => {
    for (const headers of [
      {},
      { authorization: "Basic dXNlcjpwdw==" },
      { authorization: "Bearer" },
      { authorization: "Bearer a b" },
    ]) {
      const r = await refusal(h.bots.getBot({ botRef: "b" }, { headers }));
      expect(r.code).toBe(Code.Unauthenticated);
      expect(r.machineCode).toBe("unauthenticated");
      expect(r.header("www-authenticate")).toBe('Bearer realm="svc"');
    }
  });

  it("refuses expired, exp-less, not-yet-valid, foreign-issuer and foreign-audience tokens, naming the problem", async () => {
    await expectInvalid(
      await idp.sign({ sub: "u", permissions: ["read:bots"], exp: now() - 60 }),
      /the token has expired/,
    );
    await expectInvalid(
      await idp.sign({ sub: "u", permissions: ["read:bots"] }, { expiresIn: null }),
      /lacks the required exp claim/,
    );
    await expectInvalid(
      await idp.sign({ sub: "u", permissions: ["read:bots"], nbf: now() + 600 }),
      /not valid yet/,
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

  it("tolerates a few seconds of clock skew and no more", async () => {
    await h.bots.getBot(
      { botRef: "b" },
      withBearer(await idp.sign({ sub: "u", permissions: ["read:bots"], exp: now() - 2 })),
    );
    await expectInvalid(
      await idp.sign({ sub: "u", permissions: ["read:bots"], exp: now() - 30 }),
      /expired/,
    );
  });

  it("refuses alg none, HS256 keyed with the RSA public key, and a tampered signature", async () => {
    const claims = {
      sub: "u",
      permissions: ["read:bots"],
      iss: idp.issuer,
      aud: idp.audience,
      exp: now() + 600,
    };
    await expectInvalid(unsignedToken(claims), /signing algorithm is not allowed/);
    await expectInvalid(hmacWithPublicKeyToken(idp, claims), /signing algorithm is not allowed/);
    const [head, , sig] = (await idp.sign(claims)).split(".");
    const forged = Buffer.from(
      JSON.stringify({ ...claims, permissions: ["read:bots", "halt:bots"] }),
    ).toString("base64url");
    await expectInvalid(`${head}.${forged}.${sig}`, /signature does not verify/);
  });

  it("refuses unknown and injected kids without a fetch storm on the JWKS endpoint", async () => {
    await h.bots.getBot({ botRef: "b" }, withBearer(await tokens.user("warm", ["read:bots"])));
    const before = idp.hits();
    for (let i = 0; i < 50; i++) {
      const kid = i % 2 === 0 ? "../../x" : `unknown-${i}`;
      await expectInvalid(
        await idp.sign({ sub: `u${i}`, permissions: ["read:bots"] }, { kid }),
        /no signing key of the issuer matches/,
      );
    }
    expect(idp.hits() - before).toBeLessThanOrEqual(1);
  });

  it("names the first missing scope with 403 and lists the required ones", async () => {
    const r = await refusal(
      h.bots.getBot({ botRef: "b" }, withBearer(await tokens.user("u", ["read:promotion"]))),
    );
    expect(r.code).toBe(Code.PermissionDenied);
    expect(r.machineCode).toBe("missing_scope");
    expect(r.message).toBe("the token lacks the scope read:bots");
    expect(r.details).toEqual({ scope: "read:bots", required: ["read:bots"] });
  });

  it("asks for step-up (RFC 9470) when the MFA is stale, with the spec's challenge", async () => {
    const r = await refusal(
      h.bots.haltBot(
        { botRef: "b" },
        withBearer(await tokens.stale("user|op", ["halt:bots"], 600)),
      ),
    );
    expect(r.code).toBe(Code.Unauthenticated);
    expect(r.machineCode).toBe("insufficient_user_authentication");
    expect(r.message).toMatch(/no older than 180 seconds; yours is 6\d\d seconds old/);
    const challenge = r.header("www-authenticate")!;
    expect(challenge).toMatch(
      /^Bearer error="insufficient_user_authentication", error_description="[^"]+"/,
    );
    expect(challenge).toContain(`acr_values="${MFA_ACR}"`);
    expect(challenge).toMatch(/, max_age=0$/);
  });

  it("asks for step-up when a fresh token shows no second factor", async () => {
    const r = await refusal(
      h.bots.haltBot({ botRef: "b" }, withBearer(await tokens.user("user|op", ["halt:bots"]))),
    );
    expect(r.code).toBe(Code.Unauthenticated);
    expect(r.machineCode).toBe("insufficient_user_authentication");
    expect(r.message).toMatch(/multi-factor/);
    expect(r.header("www-authenticate")).toContain("max_age=0");
  });

  it("lets a fresh MFA token (amr mfa or otp, or the PAPE acr) through a step-up route", async () => {
    await h.bots.haltBot(
      { botRef: "b" },
      withBearer(await tokens.stepUpFresh("user|op", ["halt:bots"])),
    );
    await h.bots.haltBot(
      { botRef: "b" },
      withBearer(await tokens.user("user|op", ["halt:bots"], { amr: ["pwd", "otp"] })),
    );
    await h.bots.haltBot(
      { botRef: "b" },
      withBearer(await tokens.user("user|op", ["halt:bots"], { amr: ["pwd"], acr: MFA_ACR })),
    );
    expect(h.seen.at(-1)?.sub).toBe("user|op");
  });

  it("keeps delegated agent tokens to the routes that allow agents", async () => {
    const agent = await tokens.agent("user|bob", "agent|research-1", ["read:bots", "chat:bots"]);
    const r = await refusal(h.bots.getBot({ botRef: "b" }, withBearer(agent)));
    expect(r.code).toBe(Code.PermissionDenied);
    expect(r.machineCode).toBe("agent_not_allowed");
    for await (const e of h.bots.chatBot({ botRef: "b" }, withBearer(agent))) void e;
    expect(h.seen.at(-1)).toMatchObject({
      sub: "user|bob",
      actorType: "agent",
      onBehalfOfSub: "user|bob",
      agentSubject: "agent|research-1",
      delegated: true,
    });
    await h.identity.whoAmI({}, withBearer(agent));
    expect(h.seen.at(-1)?.actorType).toBe("agent");
  });

  it("refuses an act claim that is not an object naming the agent and the issuer", async () => {
    await expectInvalid(
      await idp.sign({ sub: "user|bob", permissions: ["read:bots"], act: "agent|x" }),
      /act claim is invalid/,
    );
    await expectInvalid(
      await idp.sign({
        sub: "user|bob",
        permissions: ["read:bots"],
        act: { sub: "agent|x", iss: "https://evil.example" },
      }),
      /act claim is invalid/,
    );
  });

  it("checks machine tokens on the sync routes: audience (401), kind (403), and lets a good one through", async () => {
    const wrongAud = await refusal(
      h.identity.oidcSync({}, withBearer(await tokens.machine("hook"))),
    );
    expect(wrongAud.code).toBe(Code.Unauthenticated);
    expect(wrongAud.machineCode).toBe("invalid_token");
    expect(wrongAud.message).toMatch(/SVC_AUTH_M2M_AUDIENCE/);
    expect(wrongAud.header("www-authenticate")).toMatch(/^Bearer error="invalid_token"/);

    const userToken = await refusal(
      h.identity.oidcSync(
        {},
        withBearer(await tokens.user("user|alice", [], { aud: M2M_AUDIENCE })),
      ),
    );
    expect(userToken.code).toBe(Code.PermissionDenied);
    expect(userToken.machineCode).toBe("machine_token_required");

    const machineOnUserRoute = await refusal(
      h.identity.whoAmI({}, withBearer(await tokens.machine("hook"))),
    );
    expect(machineOnUserRoute.code).toBe(Code.PermissionDenied);
    expect(machineOnUserRoute.machineCode).toBe("user_token_required");

    await h.identity.oidcSync({}, withBearer(await tokens.machine("hook", M2M_AUDIENCE)));
    expect(h.seen.at(-1)).toMatchObject({ sub: "hook@clients", actorType: "machine" });
    await h.identity.oidcSync(
      {},
      withBearer(await idp.sign({ sub: "svc-hook@clients", aud: M2M_AUDIENCE })),
    );
    expect(h.seen.at(-1)?.actorType).toBe("machine");
  });

  it("passes public routes with no token, a bad one or a malformed header, and names a valid caller", async () => {
    await h.license.getLicensePublicKey({});
    expect(h.seen.at(-1)).toBeUndefined();
    await h.license.getLicensePublicKey({}, withBearer("not.a.token"));
    // The route runs anonymously, and a handler that needs a caller can still say why not.
    expect(h.seen.at(-1)).toBeUndefined();
    expect(h.rejected.at(-1)).toMatchObject({ code: Code.Unauthenticated });
    await h.license.getLicensePublicKey({}, { headers: { authorization: "Basic x" } });
    expect(h.seen.at(-1)).toBeUndefined();
    await h.license.getLicensePublicKey({}, withBearer(await tokens.user("user|carol", [])));
    expect(h.seen.at(-1)?.sub).toBe("user|carol");
  });
});

describe("switches of the auth interceptor", () => {
  let idp: TestIdp;
  let tokens: TestTokens;
  beforeAll(async () => {
    idp = await startTestIdp();
    tokens = createTestTokens(idp);
  });
  afterAll(() => idp.stop());

  it("refuses machine routes with 403 m2m_disabled unless SVC_AUTH_M2M_ENABLED", async () => {
    const h = createAuthHarness(oidcSettings(idp, { m2mEnabled: false }));
    const r = await refusal(
      h.identity.oidcSync({}, withBearer(await tokens.machine("hook", M2M_AUDIENCE))),
    );
    expect(r.code).toBe(Code.PermissionDenied);
    expect(r.machineCode).toBe("m2m_disabled");
  });

  it("refuses agent tokens everywhere with 403 agent_tokens_disabled unless the exchange is enabled", async () => {
    const h = createAuthHarness(oidcSettings(idp, { agentTokensEnabled: false }));
    const events = h.bots.chatBot(
      { botRef: "b" },
      withBearer(await tokens.agent("user|bob", "agent|a", ["chat:bots"])),
    );
    // A streamed answer: the refusal comes with its first event.
    const r = await refusal(
      (async () => {
        for await (const e of events) return e;
      })(),
    );
    expect(r.code).toBe(Code.PermissionDenied);
    expect(r.machineCode).toBe("agent_tokens_disabled");
  });

  it("strict enforcement refuses a caller without membership rows on every route", async () => {
    const members = new Set(["user|member"]);
    const h = createAuthHarness(oidcSettings(idp, { enforce: "strict" }), async (p) =>
      members.has(p.sub),
    );
    const r = await refusal(
      h.bots.getBot({ botRef: "b" }, withBearer(await tokens.user("user|stranger", ["read:bots"]))),
    );
    expect(r.code).toBe(Code.PermissionDenied);
    expect(r.machineCode).toBe("membership_required");
    await h.bots.getBot(
      { botRef: "b" },
      withBearer(await tokens.user("user|member", ["read:bots"])),
    );
    await h.identity.oidcSync({}, withBearer(await tokens.machine("hook", M2M_AUDIENCE)));
  });

  it("permissive enforcement lets only read-only routes skip the membership check", async () => {
    const h = createAuthHarness(oidcSettings(idp, { enforce: "permissive" }), async () => false);
    await h.bots.getBot(
      { botRef: "b" },
      withBearer(await tokens.user("user|stranger", ["read:bots"])),
    );
    const r = await refusal(
      h.bots.createBot({}, withBearer(await tokens.user("user|stranger", ["write:bots"]))),
    );
    expect(r.code).toBe(Code.PermissionDenied);
    expect(r.machineCode).toBe("membership_required");
  });

  it("answers 503 jwks_unreachable when the provider's key set cannot be fetched", async () => {
    const down = await startTestIdp();
    const token = await down.sign({ sub: "u", permissions: ["read:bots"] });
    const h = createAuthHarness(oidcSettings(down));
    await down.stop();
    const r = await refusal(h.bots.getBot({ botRef: "b" }, withBearer(token)));
    expect(r.code).toBe(Code.Unavailable);
    expect(r.machineCode).toBe("jwks_unreachable");
  });
});

describe("the auth interceptor with SVC_AUTH_PROVIDER=local", () => {
  const h = createAuthHarness(defineAuthSettings({ provider: "local" }));

  it("acts as local|default with every scope and a fresh MFA, step-up routes included", async () => {
    await h.bots.haltBot({ botRef: "b" });
    expect(h.seen.at(-1)).toMatchObject({
      sub: "local|default",
      actorType: "local",
      scopes: ["*"],
      amr: ["mfa"],
      acr: MFA_ACR,
    });
    expect(Math.abs(h.seen.at(-1)!.authTime! - now())).toBeLessThanOrEqual(1);
  });

  it("acts as local|<name> for x-svc-local-user, and refuses a bad name with 400", async () => {
    await h.identity.whoAmI({}, { headers: { "x-svc-local-user": "alice.b-2" } });
    expect(h.seen.at(-1)?.sub).toBe("local|alice.b-2");
    for (const name of ["Alice", "-a", "a b", "x".repeat(65)]) {
      const r = await refusal(h.identity.whoAmI({}, { headers: { "x-svc-local-user": name } }));
      expect(r.code).toBe(Code.InvalidArgument);
      expect(r.machineCode).toBe("invalid_argument");
    }
  });

  it("refuses a bearer token with 401 saying the platform runs with local auth", async () => {
    const r = await refusal(h.bots.getBot({ botRef: "b" }, withBearer("abc.def.ghi")));
    expect(r.code).toBe(Code.Unauthenticated);
    expect(r.machineCode).toBe("invalid_token");
    expect(r.message).toMatch(/SVC_AUTH_PROVIDER=local/);
  });
});
