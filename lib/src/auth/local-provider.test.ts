import { describe, expect, it } from "vitest";
import { localPrincipal, LOCAL_USER_HEADER } from "./local-provider.js";
import { hasScope } from "./principal.js";
import { MFA_ACR } from "./settings.js";

describe("localPrincipal", () => {
  it("is the deterministic local-default user with every scope and a fresh MFA", () => {
    const p = localPrincipal(new Headers(), 500);
    expect(p).toEqual({
      sub: "local|default",
      actorType: "local",
      delegated: false,
      roles: ["admin"],
      scopes: ["*"],
      acr: MFA_ACR,
      amr: ["mfa"],
      authTime: 500,
    });
    expect(hasScope(p, "halt:bots")).toBe(true);
  });

  it("names another local user from x-svc-local-user", () => {
    expect(localPrincipal(new Headers({ [LOCAL_USER_HEADER]: "bob" })).sub).toBe("local|bob");
    expect(() => localPrincipal(new Headers({ [LOCAL_USER_HEADER]: "../bob" }))).toThrow(
      /must match/,
    );
  });
});
