import { describe, expect, it } from "vitest";
import { checkBars, streamBars } from "./index.js";

const at = (iso: string) => Date.parse(iso);

/** What a run of the range would be fed: the bars streamed, counted. */
async function streamed(start?: number, end?: number, timeframe?: string): Promise<number> {
  let n = 0;
  for await (const b of streamBars("synthetic:5", start, end, { timeframe })) n += b.length;
  return n;
}

describe("a synthetic range's bar count, told without generating its bars", () => {
  const ranges: Array<[string, number | undefined, number | undefined, string | undefined]> = [
    ["no range", undefined, undefined, undefined],
    ["a start only", at("2021-03-04T00:00:00Z"), undefined, "1h"],
    ["an end only", undefined, at("2023-01-01T00:00:00Z"), undefined],
    [
      "a range that is not a whole number of bars",
      at("2020-01-01T00:00:00Z"),
      at("2020-01-01T01:00:30Z"),
      "1m",
    ],
    ["daily bars over years", at("2000-01-01T00:00:00Z"), at("2010-06-15T12:00:00Z"), "1d"],
    ["5-second bars", at("2024-02-29T23:00:00Z"), at("2024-03-01T01:00:01Z"), "5s"],
  ];
  it.each(ranges)("is the count a run is fed: %s", async (_, start, end, timeframe) => {
    const told = await checkBars("synthetic:5", start, end, { timeframe });
    expect(told).toBe(await streamed(start, end, timeframe));
  });

  it("refuses what a run would refuse, with the same error", async () => {
    const tooMany = [at("2000-01-01T00:00:00Z"), at("2001-01-01T00:00:00Z")] as const;
    const refusal = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: Error) => e.message,
      );
    const runRefusal = await refusal(streamed(...tooMany, "1s"));
    expect(runRefusal).toMatch(/at most/);
    expect(await refusal(checkBars("synthetic:5", ...tooMany, { timeframe: "1s" }))).toBe(
      runRefusal,
    );
    const backwards = [at("2020-01-02T00:00:00Z"), at("2020-01-01T00:00:00Z")] as const;
    expect(await refusal(checkBars("synthetic:5", ...backwards))).toBe(
      await refusal(streamed(...backwards)),
    );
    // An end before the default start: no bar, refused as a run with too few bars would be.
    await expect(checkBars("synthetic:5", undefined, at("2010-01-01T00:00:00Z"))).rejects.toThrow(
      /0 bar/,
    );
  });
});
