import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { tableFromIPC, tableToIPC } from "apache-arrow";
import { describe, expect, it } from "vitest";
import type { Bars } from "../engine/bars.js";
import { chunkRows } from "./chunker.js";
import { rowsOf } from "./import-file.js";
import { readCsvRows } from "./csv-reader.js";
import { resampleBars } from "./resample.js";
import type { BarRow } from "./rows.js";
import { arrowOf, csvOf, parquetOf, sampleRows, writeSample } from "./test-files.js";

const dir = mkdtempSync(join(tmpdir(), "readers-"));
const file = (name: string, data: ArrayBuffer | Uint8Array | string) => {
  const path = join(dir, name);
  writeSample(path, data);
  return path;
};

/** Every row of a reader, as plain values (no place). */
async function all(rows: AsyncIterable<BarRow>) {
  const out = [];
  for await (const { at: _at, ...r } of rows) out.push(r);
  return out;
}

async function chunked(rows: AsyncIterable<BarRow>, chunkBars = 1000) {
  const got = new Map<string, Bars[]>();
  const stats = await chunkRows(rows, {
    defaultSymbol: "",
    timeframeMs: 60_000,
    code: "malformed_data",
    chunkBars,
    sink: async (symbol, _seq, bars) => {
      got.set(symbol, [...(got.get(symbol) ?? []), bars]);
    },
  });
  return { stats, got };
}

describe("the data readers", () => {
  const rows = sampleRows(["BTC-USD", "ETH-USD"], 500);

  it("read the same multi-symbol bars from CSV, Parquet (row groups) and Arrow IPC (batches)", async () => {
    const expected = rows.map((r) => ({ ...r }));
    const csv = await all(rowsOf("csv", file("a.csv", csvOf(rows))));
    const pq = await all(rowsOf("parquet", file("a.parquet", parquetOf(rows, 128))));
    const arrow = await all(rowsOf("arrow", file("a.arrow", arrowOf(rows, 100))));
    expect(csv).toEqual(expected);
    expect(pq).toEqual(expected);
    expect(arrow).toEqual(expected);
    const { stats, got } = await chunked(
      rowsOf("parquet", file("b.parquet", parquetOf(rows, 128))),
      200,
    );
    expect(stats).toMatchObject({ symbols: ["BTC-USD", "ETH-USD"], count: 1000, gaps: 0 });
    expect(got.get("ETH-USD")!.map((b) => b.length)).toEqual([200, 200, 100]);
  });

  it("read Arrow's stream format as well as its file format", async () => {
    const stream = tableToIPC(tableFromIPC(arrowOf(rows, 100)), "stream");
    const read = await all(rowsOf("arrow", file("a.arrows", stream)));
    expect(read).toHaveLength(rows.length);
    expect(read[999]).toEqual({ ...rows[999] });
  });

  it("name a bad row by its line, its row group and row, or its record batch and row", async () => {
    const bad = rows.map((r, i) => (i === 300 ? { ...r, high: r.low - 1 } : r));
    await expect(all(rowsOf("csv", file("bad.csv", csvOf(bad))))).rejects.toMatchObject({
      code: "malformed_csv",
      at: { line: 302 },
      message: expect.stringMatching(/^line 302: high .* must bracket/),
    });
    // Row 300 is row 44 of the third row group of 128 rows.
    await expect(
      all(rowsOf("parquet", file("bad.parquet", parquetOf(bad, 128)))),
    ).rejects.toMatchObject({
      code: "malformed_data",
      at: { rowGroup: 2, row: 44 },
      message: expect.stringMatching(/^row group 2, row 44: high/),
    });
    await expect(all(rowsOf("arrow", file("bad.arrow", arrowOf(bad, 100))))).rejects.toMatchObject({
      at: { batch: 3, row: 0 },
      message: expect.stringMatching(/^record batch 3, row 0: high/),
    });
    // Time going back within one symbol, though the file's rows interleave two.
    const back = rows.map((r, i) => (i === 401 ? { ...r, time: r.time - 120_000 } : r));
    await expect(chunked(rowsOf("csv", file("back.csv", csvOf(back))))).rejects.toMatchObject({
      at: { line: 403 },
      message: expect.stringContaining("strictly increasing (per symbol: ETH-USD)"),
    });
  });

  it("count a missing bar as a gap", async () => {
    const holed = rows.filter((r) => !(r.symbol === "BTC-USD" && (r.time / 60_000) % 100 === 7));
    const { stats } = await chunked(rowsOf("csv", file("holes.csv", csvOf(holed))));
    expect(stats.gaps).toBe(5);
    expect(stats.count).toBe(995);
  });

  it(
    "write chunks while the file is still being read: a file is never held whole",
    {
      timeout: 90_000,
    },
    async () => {
      const total = 200_000;
      let produced = 0;
      let producedAtFirstChunk = -1;
      const lines = (function* () {
        yield "timestamp,open,high,low,close,volume\n";
        for (let i = 0; i < total; i++) {
          produced++;
          yield `${1_700_000_000_000 + i * 60_000},10,11,9,10.5,1\n`;
        }
      })();
      const stats = await chunkRows(readCsvRows(Readable.from(lines)), {
        defaultSymbol: "X",
        timeframeMs: 60_000,
        code: "malformed_csv",
        sink: async () => {
          if (producedAtFirstChunk < 0) producedAtFirstChunk = produced;
        },
      });
      expect(stats.count).toBe(total);
      // The first 64k-bar chunk went to the store after about 64k lines, not after 200k.
      expect(producedAtFirstChunk).toBeGreaterThan(0);
      expect(producedAtFirstChunk).toBeLessThan(100_000);
    },
  );

  it("resample one-minute bars to hours as they stream, across chunk boundaries", async () => {
    const oneSymbol = sampleRows(["X"], 150);
    const { got } = await chunked(rowsOf("csv", file("x.csv", csvOf(oneSymbol))), 50);
    const out: Bars[] = [];
    for await (const b of resampleBars(
      (async function* () {
        yield* got.get("X")!;
      })(),
      3_600_000,
    ))
      out.push(b);
    const hours = out.flatMap((b) => [...b.time]);
    expect(hours).toEqual([0, 1, 2].map((h) => Date.UTC(2024, 0, 1, h)));
    const first = oneSymbol.slice(0, 60);
    const bar0 = out[0]!;
    expect([bar0.open[0], bar0.high[0], bar0.low[0], bar0.close[0], bar0.volume[0]]).toEqual([
      first[0]!.open,
      Math.max(...first.map((r) => r.high)),
      Math.min(...first.map((r) => r.low)),
      first[59]!.close,
      first.reduce((v, r) => v + r.volume, 0),
    ]);
  });
});
