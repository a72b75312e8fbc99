import { describe, expect, it } from "vitest";
import {
  ACCESS_TOKEN_TYPE,
  DELEGATION_PROFILE,
  delegate,
  TOKEN_EXCHANGE_GRANT,
  type ExchangeRequest,
} from "./token-exchange.js";

const settings = {
  issuer: "https://idp.svc.test/",
  audience: "https://api.svc.test",
  ttlSeconds: 300,
  claimsNamespace: "https://svc.example/claims/",
  now: () => 1_700_000_000_000,
};
const broker = {
  id: "agent-broker",
  grants: ["client_credentials", TOKEN_EXCHANGE_GRANT],
  profiles: [DELEGATION_PROFILE],
};
const request = (over: Partial<ExchangeRequest> = {}): ExchangeRequest => ({
  client: broker,
  profile: DELEGATION_PROFILE,
  subjectTokenType: ACCESS_TOKEN_TYPE,
  subject: { sub: "oidc|carol", "https://svc.example/claims/org_id": "o-1" },
  actor: { sub: "agent|research-1" },
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
        iat: 1_700_000_000,
        exp: 1_700_000_300,
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
      { actor: { sub: "" } },
      { actor: { sub: "user|mallory" } },
      { actor: { sub: "agent|x" }, subject: ["not", "an", "object"] },
    ])
      expect(delegate(request(over as Partial<ExchangeRequest>), settings)).toMatchObject({
        ok: false,
        error: "invalid_grant",
      });
    expect(delegate(request({ subjectTokenType: "urn:x" }), settings)).toMatchObject({
      error: "invalid_request",
    });
  });
});
