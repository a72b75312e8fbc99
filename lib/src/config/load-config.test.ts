import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./index.js";

describe("loadConfig", () => {
  it("starts on the embedded defaults when nothing is configured", () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.host).toBe("127.0.0.1");
    expect(c.databaseUrl).toBeUndefined();
    expect(c.auth.provider).toBe("local");
    expect(c.auth.enforce).toBe("strict");
    expect(c.killSwitchPollIntervalS).toBe(5);
  });

  it("names every bad variable at once", () => {
    try {
      loadConfig({
        SVC_PORT: "80a",
        SVC_AUTH_ENFORCE: "lenient",
        SVC_NATS_URL: "http://x",
        SVC_AUTH_M2M_ENABLED: "maybe",
      });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const text = (err as Error).message;
      expect(text).toContain("SVC_PORT");
      expect(text).toContain("SVC_AUTH_ENFORCE");
      expect(text).toContain("strict, permissive");
      expect(text).toContain("SVC_NATS_URL");
      expect(text).toContain("SVC_AUTH_M2M_ENABLED");
    }
  });

  it("refuses an unknown SVC_ variable so a typo in a flag is not silently ignored", () => {
    expect(() => loadConfig({ SVC_AUTH_ENFORCED: "strict" })).toThrow(
      /SVC_AUTH_ENFORCED is not a known setting/,
    );
  });

  it("lets the svc command's own variables be, so a shell that uses both can start the platform", () => {
    const config = loadConfig({ SVC_URL: "http://127.0.0.1:9", SVC_TOKEN: "t", SVC_API_URL: "x" });
    expect(config.port).toBe(8080);
  });

  it("requires issuer and audience for oidc, and hides secrets in messages", () => {
    expect(() => loadConfig({ SVC_AUTH_PROVIDER: "oidc" })).toThrow(
      /SVC_AUTH_OIDC_ISSUER is required/,
    );
    try {
      loadConfig({ SVC_DATABASE_URL: "mysql://user:hunter2@db" });
      expect.unreachable();
    } catch (err) {
      expect((err as Error).message).not.toContain("hunter2");
    }
  });

  it("defaults the machine audience to the API audience", () => {
    const c = loadConfig({
      SVC_AUTH_PROVIDER: "oidc",
      SVC_AUTH_OIDC_ISSUER: "https://idp.test/",
      SVC_AUTH_OIDC_AUDIENCE: "https://api.test",
    });
    expect(c.auth.m2mAudience).toBe("https://api.test");
  });
});
