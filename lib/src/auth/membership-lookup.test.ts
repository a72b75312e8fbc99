import { ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { errorDetailOf } from "../errors/index.js";
import { createMembershipLookup } from "./membership-lookup.js";
import type { Principal } from "./principal.js";

const person = (sub: string, onBehalfOfSub?: string): Principal => ({
  sub,
  actorType: onBehalfOfSub ? "agent" : "user",
  onBehalfOfSub,
  delegated: !!onBehalfOfSub,
  roles: [],
  scopes: [],
  amr: [],
});

describe("the membership lookup", () => {
  it("remembers members longer than non-members, and checks an agent as its person", async () => {
    let now = 0;
    const asked: string[] = [];
    const rows = new Map([["user|alice", 2]]);
    const lookup = createMembershipLookup({
      countOf: async (s) => (asked.push(s), rows.get(s) ?? 0),
      ttlMs: 30_000,
      negativeTtlMs: 2_000,
      timeoutMs: 100,
      now: () => now,
    });
    expect(await lookup(person("agent|x", "user|alice"))).toBe(true);
    expect(await lookup(person("user|bob"))).toBe(false);
    rows.set("user|bob", 1);
    now = 1_000;
    expect(await lookup(person("user|bob"))).toBe(false);
    now = 2_500;
    expect(await lookup(person("user|bob"))).toBe(true);
    expect(await lookup(person("user|alice"))).toBe(true);
    expect(asked).toEqual(["user|alice", "user|bob", "user|bob"]);
  });

  it("fails closed with 503 membership_unverifiable when the identity service hangs", async () => {
    const lookup = createMembershipLookup({
      countOf: () => new Promise<number>(() => {}),
      ttlMs: 30_000,
      negativeTtlMs: 2_000,
      timeoutMs: 50,
    });
    const err = await lookup(person("user|alice")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect(errorDetailOf(err as ConnectError).code).toBe("membership_unverifiable");
  });

  it("keeps the last known answers of recent callers when many more have called: a halt with identity down still goes by them", async () => {
    let now = 0;
    let identityUp = true;
    const lookup = createMembershipLookup({
      countOf: async () => {
        if (!identityUp) throw new Error("connect ECONNREFUSED");
        return 1;
      },
      ttlMs: 30_000,
      negativeTtlMs: 2_000,
      timeoutMs: 50,
      now: () => now,
    });
    for (let i = 0; i <= 10_001; i++) await lookup(person(`user|u${i}`));
    identityUp = false;
    now = 60_000;
    expect(await lookup.forHalt(person("user|u10000"))).toEqual({
      member: true,
      source: "cached",
      ageMs: 60_000,
    });
  });
});
