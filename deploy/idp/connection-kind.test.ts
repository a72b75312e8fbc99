import { describe, expect, it } from "vitest";
import { connectionKindOf, connectionKindRules } from "./connection-kind.js";
import { onExecutePostLogin, type PostLoginEvent } from "./post-login.js";

describe("the connection kind of a login, from its connection's strategy and name", () => {
  it.each([
    [{ name: "corp-ad", strategy: "ad" }, "directory_service"],
    [{ name: "corp-adfs", strategy: "adfs" }, "directory_service"],
    [{ name: "acme.test", strategy: "google-apps" }, "workspace_suite"],
    [{ name: "acme-entra", strategy: "waad" }, "cloud_sso"],
    [{ name: "acme-okta", strategy: "okta" }, "idp_vendor_1"],
    [{ name: "acme-ping", strategy: "pingfederate" }, "idp_vendor_2"],
    [{ name: "OneLogin-Acme", strategy: "samlp" }, "idp_vendor_3"],
    [{ name: "acme-saml", strategy: "samlp" }, "generic_saml"],
    [{ name: "acme-oidc", strategy: "oidc" }, "generic_oidc"],
  ])("%o is %s", (connection, kind) => {
    expect(connectionKindOf(connection)).toBe(kind);
  });

  it("names no kind for a database or social login, so no group call is made", () => {
    expect(connectionKindOf({ name: "Username-Password-Authentication", strategy: "auth0" })).toBe(
      null,
    );
    expect(connectionKindOf({ name: "google-oauth2", strategy: "google-oauth2" })).toBe(null);
    expect(connectionKindOf({})).toBe(null);
  });

  it("follows a deployment's own rules, first match first", () => {
    const rules = connectionKindRules(
      JSON.stringify([
        { kind: "idp_vendor_2", strategies: ["samlp"], namePrefixes: ["jumpcloud"] },
        { kind: "generic_saml", strategies: ["samlp"] },
      ]),
    );
    expect(connectionKindOf({ name: "jumpcloud-acme", strategy: "samlp" }, rules)).toBe(
      "idp_vendor_2",
    );
    expect(connectionKindOf({ name: "acme", strategy: "samlp" }, rules)).toBe("generic_saml");
    // Rules replace the shipped ones: okta is no longer named.
    expect(connectionKindOf({ name: "acme-okta", strategy: "okta" }, rules)).toBe(null);
  });

  it("refuses rules naming a kind the platform does not take, or that are not rules", () => {
    expect(() => connectionKindRules('[{"kind":"okta"}]')).toThrow(/kind must be one of/);
    expect(() => connectionKindRules('{"kind":"cloud_sso"}')).toThrow(/JSON array/);
    expect(() => connectionKindRules('[{"kind":"cloud_sso","strategies":"waad"}]')).toThrow(
      /list of strings/,
    );
    expect(() => connectionKindRules("[null]")).toThrow(/kind must be one of/);
  });

  it("in the post-login action: an Okta login syncs its groups as idp_vendor_1; broken rules fail open without a group call", async () => {
    const calls: Array<{ url: string; body: string }> = [];
    const fetch = (async (url: string | URL, init?: RequestInit) => {
      calls.push({ url: String(url), body: String(init?.body ?? "") });
      if (String(url).endsWith("/oauth/token"))
        return new Response(JSON.stringify({ access_token: "m2m" }), { status: 200 });
      return new Response("{}", { status: 200 });
    }) as typeof globalThis.fetch;
    const api = {
      accessToken: { setCustomClaim: () => undefined },
      idToken: { setCustomClaim: () => undefined },
      multifactor: { enable: () => undefined },
      cache: { get: () => undefined, set: () => undefined },
    };
    const event = (secrets: Partial<PostLoginEvent["secrets"]> = {}): PostLoginEvent => ({
      user: { user_id: "okta|dan", email: "dan@acme.test", groups: ["quants"] },
      connection: { name: "acme-okta", strategy: "okta" },
      secrets: {
        API_URL: "https://api.svc.test",
        TOKEN_URL: "https://idp.svc.test/oauth/token",
        M2M_CLIENT_ID: "hook",
        M2M_CLIENT_SECRET: "s",
        M2M_AUDIENCE: "https://internal.svc.test",
        CLAIMS_NAMESPACE: "https://svc.example/claims/",
        ...secrets,
      },
    });
    const logged: string[] = [];
    const deps = { fetch, now: () => 0, log: (m: string) => void logged.push(m) };
    await onExecutePostLogin(event(), api, deps);
    const sync = calls.find((c) => c.url.endsWith("/sync-groups"))!;
    expect(JSON.parse(sync.body)).toMatchObject({
      connection_kind: "idp_vendor_1",
      external_groups: ["quants"],
    });

    calls.length = 0;
    await onExecutePostLogin(event({ CONNECTION_KINDS: "[{" }), api, deps);
    expect(calls.some((c) => c.url.endsWith("/sync-groups"))).toBe(false);
    expect(logged.at(-1)).toMatch(/login proceeds/);
  });
});
