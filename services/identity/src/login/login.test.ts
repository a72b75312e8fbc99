import { describe, expect, it } from "vitest";
import { LoginStateSealer } from "./login-state.js";
import { safeReturnTo } from "./return-to.js";

describe("return_to", () => {
  it("keeps a path of the platform and drops a fragment", () => {
    expect(safeReturnTo("")).toBe("/");
    expect(safeReturnTo("/bots/alpha?tab=runs#x")).toBe("/bots/alpha?tab=runs");
  });
  it.each([
    "//evil.example",
    "/\\evil.example",
    "https://evil.example",
    "evil",
    "/a\u0000b",
    "/a\nb",
    "/a\\b",
  ])("refuses %j", (value) => expect(safeReturnTo(value)).toBeUndefined());
});

describe("login state", () => {
  const state = {
    verifier: "v",
    returnTo: "/",
    redirectUri: "http://127.0.0.1:1/auth/callback",
    binding: "b",
    expiresAt: 2_000,
  };
  it("opens what it sealed until it expires", () => {
    const sealer = new LoginStateSealer();
    const sealed = sealer.seal(state);
    expect(sealer.open(sealed, 1_000)).toEqual(state);
    expect(sealer.open(sealed, 2_000)).toBeUndefined();
  });
  it("refuses a state altered, truncated or sealed by another key", () => {
    const sealer = new LoginStateSealer();
    const sealed = sealer.seal(state);
    const flipped = Buffer.from(sealed, "base64url");
    flipped[flipped.length - 1]! ^= 1;
    expect(sealer.open(flipped.toString("base64url"), 1_000)).toBeUndefined();
    expect(sealer.open(sealed.slice(0, 10), 1_000)).toBeUndefined();
    expect(new LoginStateSealer().open(sealed, 1_000)).toBeUndefined();
  });
  it("takes a configured key of 32 bytes only", () => {
    const key = Buffer.alloc(32, 7).toString("base64");
    expect(new LoginStateSealer(key).open(new LoginStateSealer(key).seal(state), 1_000)).toEqual(
      state,
    );
    expect(() => new LoginStateSealer(Buffer.alloc(16).toString("base64"))).toThrow(/32 bytes/);
  });
});
