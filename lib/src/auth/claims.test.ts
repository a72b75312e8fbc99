import { errors } from "jose";
import { describe, expect, it } from "vitest";
import { principalFromClaims } from "./claims.js";

const NS = "https://svc.example/claims/";
const ISS = "https://idp.example/";

describe("principalFromClaims", () => {
  it("reads the namespaced claims, falling back to user_id for the internal id", () => {
    const p = principalFromClaims(
      {
        sub: "auth0|1",
        exp: 1,
        [`${NS}org_id`]: "o",
        [`${NS}team_id`]: "t",
        [`${NS}workspace_id`]: "w",
        [`${NS}project_id`]: "p",
        [`${NS}lab_id`]: "l",
        [`${NS}roles`]: ["admin", 7],
        [`${NS}connection`]: "okta",
        [`${NS}user_id`]: "old",
      },
      NS,
    );
    expect(p).toMatchObject({
      sub: "auth0|1",
      actorType: "user",
      orgId: "o",
      teamId: "t",
      workspaceId: "w",
      projectId: "p",
      labId: "l",
      roles: ["admin"],
      connection: "okta",
      internalUserId: "old",
      expiresAt: 1,
    });
    expect(
      principalFromClaims(
        { sub: "s", [`${NS}internal_user_id`]: "new", [`${NS}user_id`]: "old" },
        NS,
      ).internalUserId,
    ).toBe("new");
  });

  it("unites the permissions array and the scope string, without duplicates", () => {
    expect(
      principalFromClaims(
        {
          sub: "s",
          permissions: ["read:bots", "write:bots"],
          scope: "openid read:bots  halt:bots",
        },
        NS,
      ).scopes,
    ).toEqual(["read:bots", "write:bots", "openid", "halt:bots"]);
  });

  it("reads acr, amr and auth_time for step-up", () => {
    expect(
      principalFromClaims({ sub: "s", acr: "x", amr: ["pwd", "otp"], auth_time: 100 }, NS),
    ).toMatchObject({ acr: "x", amr: ["pwd", "otp"], authTime: 100 });
  });

  it("makes a token with act an agent acting for sub", () => {
    const p = principalFromClaims(
      { sub: "user|bob", act: { sub: "agent|r1", iss: ISS }, svc_delegated: true, org_id: "o" },
      NS,
      ISS,
    );
    expect(p).toMatchObject({
      sub: "user|bob",
      actorType: "agent",
      agentSubject: "agent|r1",
      onBehalfOfSub: "user|bob",
      delegated: true,
      orgId: "o",
    });
  });

  it("refuses a malformed act rather than reading it as a plain user", () => {
    for (const act of [
      "agent|x",
      null,
      [],
      {},
      { sub: "" },
      { sub: "agent|x", iss: "https://other/" },
      { sub: "agent|x" },
      { sub: "user|mallory", iss: ISS },
      { sub: "Agent|x", iss: ISS },
    ]) {
      expect(() => principalFromClaims({ sub: "user|bob", act }, NS, ISS)).toThrow(
        errors.JWTClaimValidationFailed,
      );
    }
  });

  it("recognizes a client_credentials token by gty or by a sub ending in @clients", () => {
    expect(principalFromClaims({ sub: "abc@clients" }, NS).actorType).toBe("machine");
    expect(principalFromClaims({ sub: "hook", gty: "client-credentials" }, NS).actorType).toBe(
      "machine",
    );
    expect(principalFromClaims({ sub: "user|x", gty: "password" }, NS).actorType).toBe("user");
  });

  it("refuses a sub that is missing, empty or not a string", () => {
    for (const sub of [undefined, "", 42])
      expect(() => principalFromClaims({ sub: sub as string }, NS)).toThrow(
        errors.JWTClaimValidationFailed,
      );
  });
});
