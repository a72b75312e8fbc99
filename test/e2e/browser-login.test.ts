import { decodeJwt } from "jose";
import { generate } from "otplib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { followProviderLogin } from "@svc/dev-idp";
import { MFA_ACR } from "@svc/lib/auth";
import type { RunningPlatform } from "@svc/all-in-one";
import { startOidcPlatform, testUser, type OidcPlatform } from "../support/oidc-platform.js";
import { call, startTestPlatform } from "../support/test-platform.js";

/**
 * GET /auth/login and /auth/callback, the browser sign-in that is the fallback for step-up: to the
 * provider with acr_values and max_age=0, back with the code, and to the route the person started
 * from with a token that passes step-up.
 */
describe("browser sign-in through the platform", () => {
  let o: OidcPlatform;
  const alice = testUser("alice", ["read:bots", "halt:bots"]);
  const totp = () => generate({ secret: alice.totpSecret });

  beforeAll(async () => {
    o = await startOidcPlatform("pglite", [alice]);
  }, 60_000);
  afterAll(async () => {
    await o?.close();
  });

  const start = async (query: string) => {
    const res = await fetch(`${o.p.url}/auth/login?${query}`, { redirect: "manual" });
    const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    return { res, location: res.headers.get("location") ?? "", cookie };
  };
  const errorOf = async (res: Response) =>
    ((await res.json()) as { error: { code: string; details: Record<string, unknown> } }).error;
  const back = (url: string, cookie: string) =>
    fetch(`${o.p.url}/auth/callback?${new URL(url).searchParams}`, {
      redirect: "manual",
      headers: cookie ? { cookie } : {},
    });

  it("goes to the provider with the MFA acr and max_age=0, and returns to the route with a step-up token", async () => {
    const { res, location, cookie } = await start(
      `acr_values=${encodeURIComponent(MFA_ACR)}&return_to=${encodeURIComponent("/bots?view=all")}`,
    );
    expect(res.status).toBe(302);
    const authorize = new URL(location);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${o.idp.issuer}/auth`);
    expect(Object.fromEntries(authorize.searchParams)).toMatchObject({
      client_id: "svc-console",
      response_type: "code",
      acr_values: MFA_ACR,
      max_age: "0",
      code_challenge_method: "S256",
      redirect_uri: `${o.p.url}/auth/callback`,
    });
    expect(res.headers.get("set-cookie")).toMatch(
      /^svc_login=[\w-]+; Path=\/auth\/callback; .*HttpOnly; SameSite=Lax/,
    );

    const { code } = await followProviderLogin(location, {
      username: "alice",
      password: alice.password,
      totp,
      redirectUri: `${o.p.url}/auth/callback`,
    });
    expect(code).toBeTruthy();
    const providerRedirect = `${o.p.url}/auth/callback?code=${code}&state=${authorize.searchParams.get("state")}`;
    const landed = await back(providerRedirect, cookie);
    expect(landed.status).toBe(302);
    const to = landed.headers.get("location") ?? "";
    expect(to.startsWith("/bots?view=all#access_token=")).toBe(true);
    const token = new URLSearchParams(to.split("#")[1]).get("access_token")!;
    expect(decodeJwt(token)).toMatchObject({ sub: "dev|alice", acr: MFA_ACR });
    const halted = await call(
      o.p.url,
      "POST",
      "/bots/halt-all",
      {},
      { authorization: `Bearer ${token}` },
    );
    expect(halted.status, halted.text).toBe(200);

    // A code is redeemed once.
    const again = await back(providerRedirect, cookie);
    expect(again.status).toBe(400);
    expect((await errorOf(again)).code).toBe("login_code_refused");
  });

  it("refuses a callback from another browser, an altered state, another issuer, and a return_to off the site", async () => {
    const { location, cookie } = await start("return_to=/");
    const state = new URL(location).searchParams.get("state")!;
    const noCookie = await back(`http://x/?code=abc&state=${state}`, "");
    expect(noCookie.status).toBe(400);
    expect((await errorOf(noCookie)).code).toBe("login_state_invalid");
    const altered = `${state.slice(0, -2)}${state.endsWith("A") ? "B" : "A"}A`;
    const tampered = await back(`http://x/?code=abc&state=${altered}`, cookie);
    expect((await errorOf(tampered)).code).toBe("login_state_invalid");
    // RFC 9207: an answer naming another issuer is a mix-up; the code is not redeemed.
    const mixUp = await back(
      `http://x/?code=abc&state=${state}&iss=${encodeURIComponent("https://evil.example")}`,
      cookie,
    );
    expect(mixUp.status).toBe(400);
    expect((await errorOf(mixUp)).details.field).toBe("iss");

    for (const evil of ["//evil.example/x", "https://evil.example", "/\\evil.example"]) {
      const res = await fetch(`${o.p.url}/auth/login?return_to=${encodeURIComponent(evil)}`, {
        redirect: "manual",
      });
      expect(res.status, evil).toBe(400);
      expect((await errorOf(res)).details.field).toBe("return_to");
    }
  });

  it("hands a provider's refusal back to the route, in the fragment", async () => {
    const { location, cookie } = await start("return_to=/approvals");
    const state = new URL(location).searchParams.get("state")!;
    const res = await back(
      `http://x/?error=access_denied&error_description=cancelled&state=${state}`,
      cookie,
    );
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(
      "/approvals#error=access_denied&error_description=cancelled",
    );
  });
});

describe("browser sign-in under local auth", () => {
  let p: RunningPlatform;
  beforeAll(async () => {
    p = await startTestPlatform("pglite");
  });
  afterAll(async () => {
    await p?.close();
  });

  it("answers 412 naming what to set", async () => {
    const res = await call(p.url, "GET", "/auth/login?acr_values=x");
    expect(res.status).toBe(412);
    expect(res.body.error.code).toBe("login_unavailable");
    expect(res.body.error.message).toContain("SVC_AUTH_PROVIDER=oidc");
    const callback = await call(p.url, "GET", "/auth/callback?code=x&state=y");
    expect(callback.status).toBe(412);
    expect(callback.body.error.code).toBe("login_unavailable");
  });
});
