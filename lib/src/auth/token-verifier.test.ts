import { Code, ConnectError } from "@connectrpc/connect";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../../test/support/until.js";
import { errorDetailOf } from "../errors/index.js";
import { createTokenVerifier, defineAuthSettings, type AuthSettings } from "./index.js";
import { createTestTokens, startTestIdp, type TestIdp } from "./testing/index.js";

const idps: TestIdp[] = [];
afterEach(async () => {
  await Promise.all(idps.splice(0).map((i) => i.stop()));
});

async function setup(over: Partial<AuthSettings> = {}) {
  const idp = await startTestIdp();
  idps.push(idp);
  const verifier = createTokenVerifier(
    defineAuthSettings({ provider: "oidc", issuer: idp.issuer, audience: idp.audience, ...over }),
  );
  return { idp, verifier, tokens: createTestTokens(idp) };
}

async function failure(p: Promise<unknown>) {
  const err = await p.then(
    () => expect.fail("the token was expected to be refused"),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConnectError);
  const e = err as ConnectError;
  return { code: e.code, machineCode: errorDetailOf(e).code, message: e.rawMessage };
}

describe("createTokenVerifier", () => {
  it("remembers a verified token: the second call returns the same frozen principal", async () => {
    const { verifier, tokens } = await setup();
    const token = await tokens.user("user|a", ["read:bots"]);
    const first = await verifier.verify(token, "user");
    expect(await verifier.verify(token, "user")).toBe(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.scopes)).toBe(true);
  });

  it("verifies every call again with the cache off, and keeps at most tokenCacheSize tokens", async () => {
    const off = await setup({ tokenCacheSize: 0 });
    const token = await off.tokens.user("user|a", []);
    expect(await off.verifier.verify(token, "user")).not.toBe(
      await off.verifier.verify(token, "user"),
    );

    const small = await setup({ tokenCacheSize: 2 });
    const [t1, t2, t3] = await Promise.all(["u1", "u2", "u3"].map((s) => small.tokens.user(s, [])));
    const p1 = await small.verifier.verify(t1!, "user");
    const p2 = await small.verifier.verify(t2!, "user");
    await small.verifier.verify(t3!, "user");
    expect(await small.verifier.verify(t2!, "user")).toBe(p2);
    expect(await small.verifier.verify(t1!, "user")).not.toBe(p1);
  });

  it("keeps user and machine verification apart in the cache", async () => {
    const { verifier, tokens } = await setup({ m2mAudience: "https://internal.svc.test" });
    const token = await tokens.machine("hook");
    await verifier.verify(token, "user");
    const r = await failure(verifier.verify(token, "machine"));
    expect(r.machineCode).toBe("invalid_token");
    expect(r.message).toMatch(/SVC_AUTH_M2M_AUDIENCE/);
  });

  it("accepts machine tokens for the API audience when no machine audience is configured", async () => {
    const { verifier, tokens } = await setup();
    expect((await verifier.verify(await tokens.machine("hook"), "machine")).actorType).toBe(
      "machine",
    );
  });

  it("picks up a rotated key on its first unknown kid, but not twice within the cooldown", async () => {
    const { idp, verifier } = await setup({ jwksCooldownMs: 300 });
    await verifier.verify(await idp.sign({ sub: "u" }), "user");
    expect(idp.hits()).toBe(1);
    idp.rotate();
    const rotated = await idp.sign({ sub: "u" }, { key: "rotated" });
    expect((await failure(verifier.verify(rotated, "user"))).machineCode).toBe("invalid_token");
    expect(idp.hits()).toBe(1);
    // Asked again and again, it fetches the key set once more, and only once the cooldown is over.
    await eventually(
      "the rotated key is accepted after the cooldown",
      async () => (await verifier.verify(rotated, "user")).sub,
      (sub) => sub === "u",
    );
    expect(idp.hits()).toBe(2);
  });

  it("tries each candidate key when a token without kid matches several", async () => {
    const { idp, verifier } = await setup();
    idp.rotate();
    expect((await verifier.verify(await idp.sign({ sub: "a" }, { kid: null }), "user")).sub).toBe(
      "a",
    );
    expect(
      (await verifier.verify(await idp.sign({ sub: "b" }, { kid: null, key: "rotated" }), "user"))
        .sub,
    ).toBe("b");
  });

  it("refuses a sub that is not a non-empty string", async () => {
    const { idp, verifier } = await setup();
    const r = await failure(
      verifier.verify(await idp.sign({ sub: 42 as unknown as string }), "user"),
    );
    expect(r.code).toBe(Code.Unauthenticated);
    expect(r.message).toMatch(/sub claim is invalid/);
  });

  it("refuses a token issued a day ahead of our clock, and takes one within the clock tolerance", async () => {
    const { idp, verifier } = await setup({ clockToleranceSeconds: 60 });
    const aDayAhead = Math.floor(Date.now() / 1000) + 24 * 3600;
    const r = await failure(verifier.verify(await idp.sign({ sub: "u", iat: aDayAhead }), "user"));
    expect(r.code).toBe(Code.Unauthenticated);
    expect(r.machineCode).toBe("invalid_token");
    expect(r.message).toMatch(/issued in the future/);
    const skewed = Math.floor(Date.now() / 1000) + 30;
    expect((await verifier.verify(await idp.sign({ sub: "v", iat: skewed }), "user")).sub).toBe(
      "v",
    );
  });

  it.each([
    ["answers with a 500", "error"],
    ["answers with a body that is not JSON", "bad-json"],
    ["does not answer within jwksTimeoutMs", "hang"],
  ] as const)(
    "answers jwks_unreachable (Unavailable) when the JWKS endpoint %s",
    async (_, behaviour) => {
      const { idp, verifier, tokens } = await setup({ jwksTimeoutMs: 200 });
      idp.serveJwks(behaviour);
      const r = await failure(verifier.verify(await tokens.user("u", []), "user"));
      expect(r.code).toBe(Code.Unavailable);
      expect(r.machineCode).toBe("jwks_unreachable");
    },
  );

  it("does not hammer a failing JWKS endpoint, and recovers once it answers again", async () => {
    const { idp, verifier, tokens } = await setup({ jwksCooldownMs: 200 });
    idp.serveJwks("error");
    const token = await tokens.user("u", []);
    for (let i = 0; i < 20; i++)
      expect((await failure(verifier.verify(token, "user"))).machineCode).toBe("jwks_unreachable");
    expect(idp.hits()).toBe(1);
    idp.serveJwks("ok");
    await eventually(
      "the token is accepted once the endpoint answers again",
      async () => (await verifier.verify(token, "user")).sub,
      (sub) => sub === "u",
    );
    expect(idp.hits()).toBe(2);
  });

  it("in local mode refuses every token, pointing at SVC_AUTH_PROVIDER", async () => {
    const verifier = createTokenVerifier(defineAuthSettings({ provider: "local" }));
    const r = await failure(verifier.verify("a.b.c", "user"));
    expect(r.machineCode).toBe("invalid_token");
    expect(r.message).toMatch(/SVC_AUTH_PROVIDER=local/);
  });

  it("refuses unsafe settings with a TypeError", () => {
    const base = {
      provider: "oidc" as const,
      issuer: "https://idp.example",
      audience: "https://api",
    };
    expect(() =>
      createTokenVerifier({ ...defineAuthSettings(base), algorithms: ["RS256", "HS256"] }),
    ).toThrow(TypeError);
    expect(() =>
      createTokenVerifier({ ...defineAuthSettings(base), algorithms: ["none"] }),
    ).toThrow(TypeError);
    expect(() => createTokenVerifier({ ...defineAuthSettings(base), issuer: undefined })).toThrow(
      /issuer and an audience/,
    );
  });
});
