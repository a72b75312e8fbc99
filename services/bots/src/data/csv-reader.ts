import type { Readable } from "node:stream";
import { createInterface } from "node:readline";
import { badRow, DataInputError, mapColumns, rowOf, type BarRow } from "./rows.js";

/**
 * The rows of an OHLCV CSV, read a line at a time from a stream (the file is never held whole): a
 * header naming the columns (see mapColumns; a symbol column makes it multi-symbol), then one
 * row per line. Blank lines are allowed only at the end. A bad line is refused with its number
 * (1 is the header).
 */
export async function* readCsvRows(input: Readable): AsyncGenerator<BarRow> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  let lineNo = 0;
  let blankAt = 0;
  let cols: { time: number; values: number[]; symbol: number; width: number } | undefined;
  for await (const line of lines) {
    lineNo++;
    if (line.trim() === "") {
      blankAt ||= lineNo;
      continue;
    }
    if (blankAt !== 0)
      throw badRow("malformed_csv", { line: blankAt }, "expected 6 columns, got 1");
    if (!cols) {
      const names = line.split(",").map((h) => h.trim());
      const map = mapColumns(names);
      if (typeof map === "string")
        throw new DataInputError("malformed_csv", `line ${lineNo}: ${map}`, { line: lineNo });
      const index = (n: string) => names.indexOf(n);
      cols = {
        time: index(map.time),
        values: [map.open, map.high, map.low, map.close, map.volume].map(index),
        symbol: map.symbol ? index(map.symbol) : -1,
        width: names.length,
      };
      continue;
    }
    const cells = line.split(",");
    const at = { line: lineNo };
    if (cells.length !== cols.width)
      throw badRow("malformed_csv", at, `expected ${cols.width} columns, got ${cells.length}`);
    yield rowOf("malformed_csv", at, {
      time: cells[cols.time]!.trim(),
      symbol: cols.symbol >= 0 ? cells[cols.symbol] : undefined,
      values: cols.values.map((i) => cells[i]!),
    });
  }
  if (!cols)
    throw new DataInputError(
      "empty_data",
      "the CSV file is empty; it needs a header and at least one bar",
    );
}
