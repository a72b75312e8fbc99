import { Code, ConnectError, createContextValues, createHandlerContext } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { BotsService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { errorDetailOf } from "../errors/index.js";
import { hasScope, principalKey, principalOf, type Principal } from "./principal.js";

const alice: Principal = {
  sub: "user|alice",
  actorType: "user",
  delegated: false,
  roles: [],
  scopes: ["read:bots"],
  amr: [],
};
const ctx = (p?: Principal) =>
  createHandlerContext({
    service: BotsService,
    method: BotsService.method.getBot,
    protocolName: "connect",
    requestMethod: "POST",
    url: "/",
    contextValues: createContextValues().set(principalKey, p),
  });

describe("principalOf", () => {
  it("returns the principal the interceptor set", () => {
    expect(principalOf(ctx(alice))).toBe(alice);
  });

  it("answers 401 unauthenticated when no interceptor named a caller", () => {
    const err = (() => {
      try {
        principalOf(ctx());
      } catch (e) {
        return e as ConnectError;
      }
    })();
    expect(err?.code).toBe(Code.Unauthenticated);
    expect(errorDetailOf(err!).code).toBe("unauthenticated");
  });
});

describe("hasScope", () => {
  it("honours the exact scope, and the local user holds every one", () => {
    expect(hasScope(alice, "read:bots")).toBe(true);
    expect(hasScope(alice, "write:bots")).toBe(false);
    expect(hasScope({ ...alice, actorType: "local", scopes: ["*"] }, "halt:bots")).toBe(true);
  });

  it("reads a token's * as the literal scope *, granting nothing else", () => {
    const star = { ...alice, scopes: ["*"] };
    expect(hasScope(star, "halt:bots")).toBe(false);
    expect(hasScope(star, "read:bots")).toBe(false);
    expect(hasScope(star, "*")).toBe(true);
    for (const actorType of ["user", "agent", "machine"] as const)
      expect(hasScope({ ...star, actorType }, "write:bots")).toBe(false);
  });
});
