import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { Exchange } from "./exchange.js";
import { SeededLiquidity } from "./liquidity.js";
import { closesFromCsv, seededWalk } from "./price-path.js";

const dir = mkdtempSync(join(tmpdir(), "venue-bars-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the price path the seeded liquidity follows", () => {
  it("reads the closes of the bots service's bundled bars from their path in the repo", () => {
    const path = fileURLToPath(
      new URL("../../../services/bots/data/sample-btc-usd-1d.csv", import.meta.url),
    );
    const closes = closesFromCsv(path);
    expect(closes).toHaveLength(1000);
    expect(closes.slice(0, 2)).toEqual([30106.94, 29983.48]);
  });

  it("names the line of a bad close and refuses a file without a close column", () => {
    const bad = join(dir, "bad.csv");
    writeFileSync(bad, "timestamp,close\n2022-01-01,100\n2022-01-02,abc\n");
    expect(() => closesFromCsv(bad)).toThrow(/line 3: close is not a positive number/);
    const none = join(dir, "none.csv");
    writeFileSync(none, "timestamp,price\n2022-01-01,100\n");
    expect(() => closesFromCsv(none)).toThrow(/no "close" column/);
  });

  it("walks the same way for the same seed and another way for another seed", () => {
    expect(seededWalk(42, 100, 50)).toEqual(seededWalk(42, 100, 50));
    expect(seededWalk(42, 100, 50)).not.toEqual(seededWalk(43, 100, 50));
    expect(seededWalk(42, 100, 50).every((p) => p > 0)).toBe(true);
  });

  it("quotes around each close in turn, leaving no quote of the bar before", () => {
    const exchange = new Exchange(["X"]);
    const maker = new SeededLiquidity(exchange, {
      symbol: "X",
      closes: [100, 200],
      levels: 2,
      size: 3,
      step: 0.01,
      tick: 0.01,
    });
    maker.quote();
    expect(exchange.depth("X")).toEqual({
      bids: [
        [99, 3],
        [98, 3],
      ],
      asks: [
        [101, 3],
        [102, 3],
      ],
    });
    maker.advance();
    expect(exchange.depth("X")).toEqual({
      bids: [
        [198, 3],
        [196, 3],
      ],
      asks: [
        [202, 3],
        [204, 3],
      ],
    });
    maker.advance();
    expect(exchange.depth("X").bids[0]).toEqual([99, 3]);
  });
});
