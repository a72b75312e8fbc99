import { describe, expect, it } from "vitest";
import {
  ACCESS_TOKEN_TYPE,
  DELEGATION_PROFILE,
  delegate,
  TOKEN_EXCHANGE_GRANT,
  type ExchangeRequest,
} from "./token-exchange.js";

const NOW = 1_700_000_000;
const settings = {
  issuer: "https://idp.svc.test/",
  audience: "https://api.svc.test",
  ttlSeconds: 300,
  claimsNamespace: "https://svc.example/claims/",
  now: () => NOW * 1000,
};
const broker = {
  id: "agent-broker",
  grants: ["client_credentials", TOKEN_EXCHANGE_GRANT],
  profiles: [DELEGATION_PROFILE],
};
/** carol's own access token, as the provider's RBAC made it: she may read MCP data, not write. */
const carol = {
  sub: "oidc|carol",
  aud: settings.audience,
  client_id: "svc-console",
  exp: NOW + 3600,
  permissions: ["read:bots", "read:mcp:data"],
  "https://svc.example/claims/org_id": "o-1",
};
const agent = {
  sub: "agent|research-1",
  aud: settings.audience,
  client_id: "agent|research-1",
  gty: "client-credentials",
  exp: NOW + 3600,
};
const request = (over: Partial<ExchangeRequest> = {}): ExchangeRequest => ({
  client: broker,
  profile: DELEGATION_PROFILE,
  subjectTokenType: ACCESS_TOKEN_TYPE,
  subject: carol,
  actor: agent,
  scopes: ["read:mcp:data"],
  ...over,
});

describe("the svc-agent-delegation token-exchange profile", () => {
  it("mints the person's token for the agent: API audience, scopes, act, marker, org, ttl", () => {
    expect(delegate(request(), settings)).toEqual({
      ok: true,
      expiresIn: 300,
      claims: {
        iss: settings.issuer,
        sub: "oidc|carol",
        aud: settings.audience,
        iat: NOW,
        exp: NOW + 300,
        scope: "read:mcp:data",
        permissions: ["read:mcp:data"],
        act: { sub: "agent|research-1", iss: settings.issuer },
        svc_delegated: true,
        org_id: "o-1",
      },
    });
  });

  it("answers the spec's three errors", () => {
    expect(delegate(request({ profile: "other" }), settings)).toMatchObject({
      ok: false,
      error: "invalid_request",
      description: expect.stringMatching(/profile not found/),
    });
    expect(delegate(request({ profile: undefined }), settings)).toMatchObject({
      error: "invalid_request",
    });
    expect(
      delegate(request({ client: { ...broker, grants: ["client_credentials"] } }), settings),
    ).toMatchObject({ error: "unauthorized_client" });
    expect(
      delegate(
        request({ client: { ...broker, profiles: [DELEGATION_PROFILE, "admin"] } }),
        settings,
      ),
    ).toMatchObject({ error: "unauthorized_client" });
    expect(
      delegate(request({ scopes: ["read:mcp:data", "admin:platform"] }), settings),
    ).toMatchObject({
      error: "invalid_target",
      description: expect.stringMatching(/scope rejected: admin:platform/),
    });
  });

  it("rejects the subject token when a payload or a sub is missing, or the actor is not an agent", () => {
    for (const over of [
      { subject: undefined },
      { actor: null },
      { subject: { email: "no-sub" } },
      { actor: { ...agent, sub: "" } },
      { actor: { ...agent, sub: "user|mallory" } },
      { subject: ["not", "an", "object"] },
    ])
      expect(delegate(request(over as Partial<ExchangeRequest>), settings)).toMatchObject({
        ok: false,
        error: "invalid_grant",
      });
    expect(delegate(request({ subjectTokenType: "urn:x" }), settings)).toMatchObject({
      error: "invalid_request",
    });
  });

  it.each([
    [
      "a machine's client-credentials token (gty)",
      { sub: "svc-machine", gty: "client-credentials", permissions: [] },
      /machine/,
    ],
    [
      "a machine's token in Auth0's client form",
      { sub: "m2m@clients", client_id: "m2m" },
      /machine/,
    ],
    [
      "a machine's token whose sub is its own client",
      { sub: "svc-machine", client_id: "svc-machine" },
      /machine/,
    ],
    ["an agent's own token", { sub: "agent|research-1", client_id: "svc-console" }, /agent/],
    [
      "a delegated token (act)",
      { act: { sub: "agent|other", iss: settings.issuer }, svc_delegated: true },
      /already delegated/,
    ],
    ["a token marked delegated without act", { svc_delegated: true }, /already delegated/],
    ["a token for another audience", { aud: "https://internal.svc.test" }, /API audience/],
    ["a token for several audiences, none the API", { aud: ["a", "b"] }, /API audience/],
    ["an expired token", { exp: NOW - 1 }, /expired/],
    ["a token without exp", { exp: undefined }, /expired/],
  ])("mints nothing from %s as the subject", (_, over, why) => {
    const subject = { ...carol, permissions: [...carol.permissions, "write:mcp:data"], ...over };
    const result = delegate(
      request({ subject, scopes: ["read:mcp:data", "write:mcp:data"] }),
      settings,
    );
    expect(result).toMatchObject({ ok: false, error: "invalid_grant" });
    expect(result.ok ? "" : result.description).toMatch(why);
  });

  it("takes an actor token only if it is the agent's own, for the API audience", () => {
    expect(
      delegate(request({ actor: { ...agent, aud: "https://other.api" } }), settings),
    ).toMatchObject({ ok: false, error: "invalid_grant" });
    expect(
      delegate(
        request({ actor: { ...agent, act: { sub: "agent|x", iss: settings.issuer } } }),
        settings,
      ),
    ).toMatchObject({ ok: false, error: "invalid_grant" });
  });

  it("grants only the requested scopes the person holds, and says so in scope", () => {
    const both = delegate(request({ scopes: ["read:mcp:data", "write:mcp:data"] }), settings);
    expect(both).toMatchObject({
      ok: true,
      claims: { scope: "read:mcp:data", permissions: ["read:mcp:data"] },
    });
    // A scope string the client asked for at sign-in is not a permission of the person.
    const asked = { ...carol, scope: "openid write:mcp:data" };
    expect(
      delegate(request({ subject: asked, scopes: ["write:mcp:data"] }), settings),
    ).toMatchObject({ ok: false, error: "invalid_scope" });
  });

  it("grants nothing the provider says the person lost since the subject token was issued", () => {
    expect(delegate(request({ personHoldsNow: ["read:bots"] }), settings)).toMatchObject({
      ok: false,
      error: "invalid_scope",
      description: expect.stringMatching(/holds none of read:mcp:data/),
    });
    expect(
      delegate(
        request({
          subject: { ...carol, permissions: ["read:mcp:data", "write:mcp:data"] },
          scopes: ["read:mcp:data", "write:mcp:data"],
          personHoldsNow: ["write:mcp:data"],
        }),
        settings,
      ),
    ).toMatchObject({ ok: true, claims: { scope: "write:mcp:data" } });
  });

  it("never outlives the subject token", () => {
    const shortLived = delegate(request({ subject: { ...carol, exp: NOW + 42 } }), settings);
    expect(shortLived).toMatchObject({ ok: true, expiresIn: 42, claims: { exp: NOW + 42 } });
  });
});
