import { describe, expect, it } from "vitest";
import { assertLoopbackHost, localPrincipal, LOCAL_USER_HEADER } from "./local-provider.js";
import { hasScope } from "./principal.js";
import { MFA_ACR } from "./settings.js";

describe("localPrincipal", () => {
  it("is the deterministic local-default user with every scope and a fresh MFA", () => {
    const p = localPrincipal(new Headers(), 500);
    expect(p).toEqual({ sub: "local|default", actorType: "local", delegated: false, roles: ["admin"], scopes: ["*"], acr: MFA_ACR, amr: ["mfa"], authTime: 500 });
    expect(hasScope(p, "halt:bots")).toBe(true);
  });

  it("names another local user from x-svc-local-user", () => {
    expect(localPrincipal(new Headers({ [LOCAL_USER_HEADER]: "bob" })).sub).toBe("local|bob");
    expect(() => localPrincipal(new Headers({ [LOCAL_USER_HEADER]: "../bob" }))).toThrow(/must match/);
  });
});

describe("assertLoopbackHost", () => {
  it.each(["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST", "::ffff:127.0.0.1"])("accepts %s", (host) => {
    expect(() => assertLoopbackHost(host)).not.toThrow();
  });

  it.each(["0.0.0.0", "::", "192.168.1.2", "10.0.0.1", "example.com", "128.0.0.1", "", "::ffff:10.0.0.1"])("refuses %s, explaining why", (host) => {
    expect(() => assertLoopbackHost(host)).toThrow(/only listens on loopback/);
  });
});
