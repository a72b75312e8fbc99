import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineAuthSettings } from "./index.js";
import {
  createAuthHarness,
  createTestTokens,
  freshMfaClaims,
  refusal,
  startTestIdp,
  withBearer,
  type AuthHarness,
  type TestIdp,
  type TestTokens,
} from "./testing/index.js";

const now = () => Math.floor(Date.now() / 1000);

// Through the real interceptor and the real proto policies: a "*" in a token is a scope like any
// other string, and a step-up auth_time from the future is no proof of a recent sign-in.
describe("literal scopes and step-up freshness", () => {
  let idp: TestIdp;
  let tokens: TestTokens;
  let h: AuthHarness;

  beforeAll(async () => {
    idp = await startTestIdp();
    tokens = createTestTokens(idp);
    h = createAuthHarness(
      defineAuthSettings({ provider: "oidc", issuer: idp.issuer, audience: idp.audience }),
    );
  });
  afterAll(() => idp.stop());

  it('refuses a token whose permissions are ["*"], naming the missing scope', async () => {
    const r = await refusal(
      h.bots.getBot({ botRef: "b" }, withBearer(await tokens.user("user|mallory", ["*"]))),
    );
    expect(r.code).toBe(Code.PermissionDenied);
    expect(r.machineCode).toBe("missing_scope");
    expect(r.details).toEqual({ scope: "read:bots", required: ["read:bots"] });
  });

  it("refuses a token whose scope string is *, on plain and step-up routes", async () => {
    const create = await refusal(
      h.bots.createBot({}, withBearer(await idp.sign({ sub: "user|mallory", scope: "*" }))),
    );
    expect(create.machineCode).toBe("missing_scope");
    const halt = await refusal(
      h.bots.haltBot(
        { botRef: "b" },
        withBearer(await idp.sign(freshMfaClaims("user|mallory", [], { scope: "openid *" }))),
      ),
    );
    expect(halt.code).toBe(Code.PermissionDenied);
    expect(halt.details.scope).toBe("halt:bots");
  });

  it("still lets the literally named scope through", async () => {
    await h.bots.getBot(
      { botRef: "b" },
      withBearer(await tokens.user("user|reader", ["*", "read:bots"])),
    );
    expect(h.seen.at(-1)?.sub).toBe("user|reader");
  });

  it("answers 401 insufficient_user_authentication to an auth_time in the future", async () => {
    const future = await idp.sign(
      freshMfaClaims("user|op", ["halt:bots"], { auth_time: now() + 3600 }),
    );
    const r = await refusal(h.bots.haltBot({ botRef: "b" }, withBearer(future)));
    expect(r.code).toBe(Code.Unauthenticated);
    expect(r.machineCode).toBe("insufficient_user_authentication");
    expect(r.message).toMatch(/in the future, beyond the 5 seconds of clock tolerance/);
    expect(r.header("www-authenticate")).toMatch(
      /^Bearer error="insufficient_user_authentication".*max_age=0$/,
    );
  });

  it("accepts an auth_time a few seconds ahead, within the clock tolerance", async () => {
    await h.bots.haltBot(
      { botRef: "b" },
      withBearer(
        await idp.sign(freshMfaClaims("user|op", ["halt:bots"], { auth_time: now() + 2 })),
      ),
    );
    expect(h.seen.at(-1)?.sub).toBe("user|op");
  });
});
