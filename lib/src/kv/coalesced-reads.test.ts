import { describe, expect, it } from "vitest";
import { coalescedReads } from "./coalesced-reads.js";

describe("coalescedReads", () => {
  const store = new Map([
    ["a", "1"],
    ["b", "2"],
  ]);

  it("answers the calls of one turn with one read of their keys, each key asked once, each caller in its own order", async () => {
    const reads: string[][] = [];
    const getMany = coalescedReads(async (keys) => {
      reads.push(keys);
      return keys.map((k) => store.get(k) ?? null);
    });
    const answers = await Promise.all([getMany(["a", "b"]), getMany(["b", "c", "a"]), getMany([])]);
    expect(answers).toEqual([["1", "2"], ["2", null, "1"], []]);
    expect(reads).toEqual([["a", "b", "c"]]);
    // A later turn is a read of its own.
    expect(await getMany(["b"])).toEqual(["2"]);
    expect(reads).toHaveLength(2);
  });

  it("fails every caller of a read that fails, and the next turn reads again", async () => {
    let down = true;
    const getMany = coalescedReads(async (keys) => {
      if (down) throw new Error("store down");
      return keys.map((k) => store.get(k) ?? null);
    });
    const calls = [getMany(["a"]), getMany(["b"])];
    await expect(calls[0]).rejects.toThrow("store down");
    await expect(calls[1]).rejects.toThrow("store down");
    down = false;
    expect(await getMany(["a"])).toEqual(["1"]);
  });
});
