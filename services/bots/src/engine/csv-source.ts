import { allocateBars, type Bars } from "./bars.js";
import { EngineInputError } from "./engine-error.js";

const HEADER = ["timestamp", "open", "high", "low", "close", "volume"];

/**
 * Parses OHLCV bars from CSV, the format most vendors export: a header
 * `timestamp,open,high,low,close,volume`, then one bar per line. A timestamp is ISO 8601 (UTC
 * when it carries no offset) or epoch seconds or milliseconds. Bars must be strictly increasing
 * in time, with low <= min(open, close) and high >= max(open, close). Any problem names its line.
 */
export function parseCsvBars(text: string): Bars {
  const lines = text.split(/\r?\n/);
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
  if (lines.length === 0)
    throw new EngineInputError(
      "empty_data",
      "the CSV file is empty; it needs a header and at least one bar",
    );
  const header = lines[0]!
    .trim()
    .toLowerCase()
    .split(",")
    .map((h) => h.trim());
  if (header.join(",") !== HEADER.join(",")) {
    throw new EngineInputError(
      "malformed_csv",
      `line 1: the header must be ${HEADER.join(",")}; got ${lines[0]!.trim()}`,
      "data",
      1,
    );
  }
  if (lines.length === 1)
    throw new EngineInputError("empty_data", "the CSV file has a header but no bars");
  const bars = allocateBars(lines.length - 1);
  for (let i = 1; i < lines.length; i++) {
    const lineNo = i + 1;
    const bad = (why: string) =>
      new EngineInputError("malformed_csv", `line ${lineNo}: ${why}`, "data", lineNo);
    const cells = lines[i]!.split(",");
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
    const k = i - 1;
    if (k > 0 && time <= bars.time[k - 1]!) throw bad("timestamps must be strictly increasing");
    bars.time[k] = time;
    bars.open[k] = open!;
    bars.high[k] = high!;
    bars.low[k] = low!;
    bars.close[k] = close!;
    bars.volume[k] = volume!;
  }
  return bars;
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
