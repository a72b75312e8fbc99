import { describe, expect, it } from "vitest";
import { principalFromClaims } from "./claims.js";
import { createDelegatedScopeGuard } from "./delegated-scopes.js";

const NS = "https://svc.example/claims/";
const ISS = "https://idp.example/";
const person = (iat: number, permissions: string[], sub = "oidc|carol") =>
  principalFromClaims({ sub, iat, exp: iat + 3600, permissions }, NS, ISS);
const agent = (iat: number, permissions: string[], sub = "oidc|carol") =>
  principalFromClaims(
    {
      sub,
      iat,
      exp: iat + 300,
      permissions,
      act: { sub: "agent|research", iss: ISS },
      svc_delegated: true,
    },
    NS,
    ISS,
  );

describe("the delegated scope guard", () => {
  it("takes from a delegation what a newer token of its person no longer grants", () => {
    const guard = createDelegatedScopeGuard();
    guard.observe(person(100, ["read:bots", "read:mcp:data", "write:mcp:data"]));
    const delegation = agent(110, ["read:mcp:data", "write:mcp:data"]);
    expect(guard.revoked(delegation)).toEqual([]);
    guard.observe(person(120, ["read:bots", "read:mcp:data"]));
    expect(guard.revoked(delegation)).toEqual(["write:mcp:data"]);
  });

  it("does not let an older token of the person, seen later, undo what a newer one said", () => {
    const guard = createDelegatedScopeGuard();
    guard.observe(person(120, ["read:bots"]));
    guard.observe(person(100, ["read:bots", "read:mcp:data"]));
    expect(guard.revoked(agent(110, ["read:mcp:data"]))).toEqual(["read:mcp:data"]);
  });

  it("leaves a delegation newer than every token of the person it saw to the provider's grant", () => {
    const guard = createDelegatedScopeGuard();
    guard.observe(person(100, ["read:bots"]));
    expect(guard.revoked(agent(130, ["read:mcp:data"]))).toEqual([]);
  });

  it("learns nothing from a delegated token, and keeps one person's tokens from another's", () => {
    const guard = createDelegatedScopeGuard();
    guard.observe(person(100, ["read:mcp:data"]));
    guard.observe(agent(120, []));
    guard.observe(person(120, [], "oidc|Carol"));
    expect(guard.revoked(agent(110, ["read:mcp:data"]))).toEqual([]);
  });

  it("forgets the person updated longest ago past its capacity, not the newest", () => {
    const guard = createDelegatedScopeGuard(2);
    guard.observe(person(120, [], "oidc|a"));
    guard.observe(person(120, [], "oidc|b"));
    guard.observe(person(121, [], "oidc|a"));
    guard.observe(person(120, [], "oidc|c"));
    expect(guard.revoked(agent(110, ["read:mcp:data"], "oidc|a"))).toEqual(["read:mcp:data"]);
    expect(guard.revoked(agent(110, ["read:mcp:data"], "oidc|b"))).toEqual([]);
    expect(guard.revoked(agent(110, ["read:mcp:data"], "oidc|c"))).toEqual(["read:mcp:data"]);
  });
});
