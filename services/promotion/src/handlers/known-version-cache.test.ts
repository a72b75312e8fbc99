import { describe, expect, it } from "vitest";
import { knownVersionCache } from "./known-version-cache.js";

const row = (bot_id: string, version: number) => ({
  bot_id,
  version,
  slug: `slug-${bot_id}`,
  fleet: "majors",
  spec_hash: `hash-${bot_id}-${version}`,
});

describe("the cache of bot versions creates found", () => {
  it("answers by bot_ref and version, and forgets what a create found moved", () => {
    const versions = knownVersionCache();
    versions.set("alpha", 1, row("a", 1));
    versions.set("alpha", 2, row("a", 2));
    expect(versions.get("alpha", 1)).toEqual(row("a", 1));
    expect(versions.get("alpha", 2)?.spec_hash).toBe("hash-a-2");
    expect(versions.get("alpha", 3)).toBeUndefined();
    versions.forget("alpha", 1);
    expect(versions.get("alpha", 1)).toBeUndefined();
    expect(versions.get("alpha", 2)).toBeDefined();
  });

  it("keeps at most max entries, the oldest set going first", () => {
    const versions = knownVersionCache(2);
    versions.set("a", 1, row("a", 1));
    versions.set("b", 1, row("b", 1));
    versions.set("a", 1, row("a", 1)); // set again: now the newest
    versions.set("c", 1, row("c", 1));
    expect([versions.get("a", 1), versions.get("b", 1), versions.get("c", 1)]).toEqual([
      row("a", 1),
      undefined,
      row("c", 1),
    ]);
  });
});
