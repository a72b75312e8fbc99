import { describe, expect, it } from "vitest";
import { defineAuthSettings, jwksUriOf } from "./settings.js";

describe("defineAuthSettings", () => {
  it("fills the defaults: asymmetric algorithms, 180 s step-up, strict enforcement", () => {
    const s = defineAuthSettings({
      provider: "oidc",
      issuer: "https://idp.example/",
      audience: "https://api",
      m2mAudience: undefined,
    });
    expect(s).toMatchObject({
      algorithms: ["RS256", "ES256", "EdDSA", "PS256"],
      stepUpMaxAgeSeconds: 180,
      clockToleranceSeconds: 5,
      enforce: "strict",
      m2mEnabled: false,
    });
    expect(s.m2mAudience).toBeUndefined();
  });

  it("refuses none, HS* and a namespace without a trailing slash", () => {
    expect(() => defineAuthSettings({ provider: "local", algorithms: ["HS512"] })).toThrow(
      TypeError,
    );
    expect(() => defineAuthSettings({ provider: "local", algorithms: ["none"] })).toThrow(
      TypeError,
    );
    expect(() =>
      defineAuthSettings({ provider: "local", claimsNamespace: "https://svc.example/claims" }),
    ).toThrow(/end with/);
  });
});

describe("jwksUriOf", () => {
  it("defaults to the issuer's well-known path, and honours an explicit URI", () => {
    const base = defineAuthSettings({
      provider: "oidc",
      issuer: "https://idp.example/",
      audience: "a",
    });
    expect(jwksUriOf(base).href).toBe("https://idp.example/.well-known/jwks.json");
    expect(jwksUriOf({ ...base, jwksUri: "https://keys.example/jwks" }).href).toBe(
      "https://keys.example/jwks",
    );
  });
});
