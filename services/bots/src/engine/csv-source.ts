import { open } from "node:fs/promises";
import { createInterface } from "node:readline";
import { allocateBars, setBar, type Bars } from "./bars.js";
import { EngineInputError } from "./engine-error.js";

const HEADER = ["timestamp", "open", "high", "low", "close", "volume"];

/** Bars per chunk a CSV stream yields: 64k bars are 3 MiB of columns. */
export const CSV_CHUNK_BARS = 65_536;

/**
 * Reads OHLCV bars from a CSV file line by line, in chunks of `chunkBars`: the file is never
 * held as text and, if the consumer runs each chunk and lets it go, never as bars either.
 * `keep` chooses the bars to yield (a date range); every line is checked all the same, so a
 * file is refused for the same line whatever the range. See `CsvBarParser` for the format.
 */
export async function* streamCsvBars(
  path: string,
  keep: (time: number) => boolean = () => true,
  chunkBars = CSV_CHUNK_BARS,
): AsyncGenerator<Bars> {
  const file = await open(path);
  try {
    let chunk = allocateBars(chunkBars);
    let n = 0;
    const parser = new CsvBarParser((time, o, h, l, c, v) => {
      if (!keep(time)) return;
      setBar(chunk, n++, time, o, h, l, c, v);
    });
    const lines = createInterface({ input: file.createReadStream(), crlfDelay: Infinity });
    for await (const line of lines) {
      parser.push(line);
      if (n === chunkBars) {
        yield chunk;
        chunk = allocateBars(chunkBars);
        n = 0;
      }
    }
    parser.end();
    if (n > 0) yield headOf(chunk, n);
  } finally {
    await file.close();
  }
}

/** Parses CSV text already in memory (small inputs, tests); same rules and errors as a file. */
export function parseCsvBars(text: string): Bars {
  const columns: number[][] = [[], [], [], [], [], []];
  const parser = new CsvBarParser((...bar) => bar.forEach((v, i) => columns[i]!.push(v)));
  for (const line of text.split(/\r?\n/)) parser.push(line);
  parser.end();
  const [time, open, high, low, close, volume] = columns.map((c) => Float64Array.from(c));
  return {
    length: time!.length,
    time: time!,
    open: open!,
    high: high!,
    low: low!,
    close: close!,
    volume: volume!,
  };
}

/**
 * The CSV format most vendors export, one line at a time: a header
 * `timestamp,open,high,low,close,volume`, then one bar per line. A timestamp is ISO 8601 (UTC
 * when it carries no offset) or epoch seconds or milliseconds. Bars must be strictly increasing
 * in time, with low <= min(open, close) and high >= max(open, close). Any problem names its
 * line; blank lines are allowed only at the end.
 */
export class CsvBarParser {
  private lineNo = 0;
  private headerSeen = false;
  /** The first of the blank lines read since the last bar: an error if a bar follows. */
  private blankSince = 0;
  private lastTime = -Infinity;
  private count = 0;

  constructor(
    private readonly onBar: (
      time: number,
      open: number,
      high: number,
      low: number,
      close: number,
      volume: number,
    ) => void,
  ) {}

  push(line: string): void {
    this.lineNo++;
    if (line.trim() === "") {
      if (this.blankSince === 0) this.blankSince = this.lineNo;
      return;
    }
    if (this.blankSince !== 0) {
      const at = this.blankSince;
      this.blankSince = 0;
      this.parse("", at);
    }
    this.parse(line, this.lineNo);
  }

  /** The end of the input: refuses a file with no header or no bar. */
  end(): void {
    if (!this.headerSeen)
      throw new EngineInputError(
        "empty_data",
        "the CSV file is empty; it needs a header and at least one bar",
      );
    if (this.count === 0)
      throw new EngineInputError("empty_data", "the CSV file has a header but no bars");
  }

  private parse(line: string, lineNo: number): void {
    if (!this.headerSeen) {
      const header = line
        .trim()
        .toLowerCase()
        .split(",")
        .map((h) => h.trim());
      if (header.join(",") !== HEADER.join(","))
        throw new EngineInputError(
          "malformed_csv",
          `line ${lineNo}: the header must be ${HEADER.join(",")}; got ${line.trim()}`,
          "data",
          lineNo,
        );
      this.headerSeen = true;
      return;
    }
    const bad = (why: string) =>
      new EngineInputError("malformed_csv", `line ${lineNo}: ${why}`, "data", lineNo);
    const cells = line.split(",");
    if (cells.length !== 6) throw bad(`expected 6 columns, got ${cells.length}`);
    const time = parseTime(cells[0]!.trim());
    if (Number.isNaN(time))
      throw bad(
        `timestamp ${JSON.stringify(cells[0]!.trim())} is neither ISO 8601 nor epoch seconds or milliseconds`,
      );
    const [open, high, low, close, volume] = cells
      .slice(1)
      .map((c) => (c.trim() === "" ? NaN : Number(c)));
    for (const [name, v] of [
      ["open", open],
      ["high", high],
      ["low", low],
      ["close", close],
      ["volume", volume],
    ] as const) {
      if (!Number.isFinite(v))
        throw bad(`${name} ${JSON.stringify(cells[HEADER.indexOf(name)]!.trim())} is not a number`);
    }
    if (!(open! > 0 && high! > 0 && low! > 0 && close! > 0)) throw bad("prices must be positive");
    if (volume! < 0) throw bad("volume must not be negative");
    if (high! < Math.max(open!, close!) || low! > Math.min(open!, close!))
      throw bad(`high ${high} and low ${low} must bracket open ${open} and close ${close}`);
    if (time <= this.lastTime) throw bad("timestamps must be strictly increasing");
    this.lastTime = time;
    this.count++;
    this.onBar(time, open!, high!, low!, close!, volume!);
  }
}

/** The first `n` bars of a chunk, as views (no copy). */
export function headOf(b: Bars, n: number): Bars {
  return {
    length: n,
    time: b.time.subarray(0, n),
    open: b.open.subarray(0, n),
    high: b.high.subarray(0, n),
    low: b.low.subarray(0, n),
    close: b.close.subarray(0, n),
    volume: b.volume.subarray(0, n),
  };
}

function parseTime(s: string): number {
  if (/^\d+(\.\d+)?$/.test(s)) {
    const n = Number(s);
    // Epoch seconds until the year 5138; anything larger is milliseconds.
    return n < 1e11 ? n * 1000 : n;
  }
  const iso = /[zZ]|[+-]\d\d:?\d\d$/.test(s) || !s.includes("T") ? s : `${s}Z`;
  const withZone = /^\d{4}-\d\d-\d\d$/.test(iso) ? `${iso}T00:00:00Z` : iso;
  return Date.parse(withZone);
}
