import { describe, expect, it } from "vitest";
import { canonicalSubject, sameSubject } from "./canonical-subject.js";

describe("canonicalSubject", () => {
  it("folds case, surrounding white space, format characters and compatibility forms", () => {
    expect(canonicalSubject("user|Alice")).toBe("user|alice");
    expect(canonicalSubject("  user|alice \t")).toBe("user|alice");
    for (const zw of ["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"]) {
      expect(canonicalSubject(`user|ali${zw}ce${zw}`)).toBe("user|alice");
    }
    expect(canonicalSubject("user|\uff41\uff4c\uff49\uff43\uff45")).toBe("user|alice");
    expect(canonicalSubject("USER|\uff21LICE\u200b ")).toBe("user|alice");
  });

  it("keeps different people different", () => {
    expect(sameSubject("user|alice", "user|alicia")).toBe(false);
    expect(sameSubject("user|alice", "auth0|alice")).toBe(false);
    expect(sameSubject("user|a lice", "user|alice")).toBe(false);
  });

  it("says two spellings of one subject are the same person", () => {
    expect(sameSubject("user|alice", "user|Alice")).toBe(true);
    expect(sameSubject("user|alice", "\ufeffuser|alice\u2060")).toBe(true);
  });
});
