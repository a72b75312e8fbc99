import { describe, expect, it } from "vitest";
import { canonicalSubject, sameSubject } from "./canonical-subject.js";

/** Spellings of user|alice that render like it, each of which once passed for another person. */
const LOOK_ALIKES: [string, string][] = [
  ["another case", "USER|Alice"],
  ["surrounding white space", "  user|alice \t"],
  ["full-width letters", "user|\uff41\uff4c\uff49\uff43\uff45"],
  ["a zero-width space", "user|ali\u200bce"],
  ["a soft hyphen", "user|ali\u00adce"],
  ["a variation selector (U+FE0F)", "user|alice\ufe0f"],
  ["a Hangul filler (U+3164)", "user|alice\u3164"],
  ["a halfwidth Hangul filler (U+FFA0)", "user|alice\uffa0"],
  ["Hangul choseong/jungseong fillers", "user|\u115fali\u1160ce"],
  ["a Braille blank (U+2800)", "user|alice\u2800"],
  ["a combining grapheme joiner", "user|a\u034flice"],
  ["Cyrillic а", "user|\u0430lice"],
  ["Cyrillic е", "user|alic\u0435"],
  ["Greek capital Alpha", "user|\u0391lice"],
  ["dotless ı", "user|al\u0131ce"],
  ["Turkish İ", "user|al\u0130ce"],
  ["capital I for l", "user|aIice"],
  ["a trailing dot", "user|alice."],
];

describe("sameSubject", () => {
  it.each(LOOK_ALIKES)("takes user|alice with %s for alice", (_what, sub) => {
    expect(sameSubject("user|alice", sub)).toBe(true);
    expect(sameSubject(sub, "user|alice")).toBe(true);
  });

  it("keeps different people different", () => {
    expect(sameSubject("user|alice", "user|alicia")).toBe(false);
    expect(sameSubject("user|alice", "user|bob")).toBe(false);
    expect(sameSubject("user|alice", "auth0|alice")).toBe(false);
    expect(sameSubject("user|a lice", "user|alice")).toBe(false);
    expect(sameSubject("user|alice", "user|alice2")).toBe(false);
  });
});

describe("canonicalSubject", () => {
  it("gives look-alikes NFKC keeps apart one form", () => {
    const alice = canonicalSubject("user|alice");
    for (const sub of ["user|\u0430lic\u0435", "USER|AL\u0130CE.", "user|\u0391l\u0131ce\ufe0f"])
      expect(canonicalSubject(sub), JSON.stringify(sub)).toBe(alice);
    expect(canonicalSubject("user|mallory")).toBe(canonicalSubject("user|rnallory"));
  });
});
