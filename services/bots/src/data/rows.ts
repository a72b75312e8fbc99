/** One OHLCV row of an imported file, with where it was (for a message a person can act on). */
export interface BarRow {
  /** The row's symbol column; empty when the file has none (the request's symbol applies). */
  symbol: string;
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
  at: RowPlace;
}

/** Where a row sits: a CSV line (1 is the header), or a Parquet row group or Arrow batch and row. */
export interface RowPlace {
  line?: number;
  rowGroup?: number;
  batch?: number;
  row?: number;
}

export type DataErrorCode = "malformed_csv" | "malformed_data" | "empty_data" | "invalid_argument";

/** A file the catalog cannot read, with its line or row group and row in `details`. */
export class DataInputError extends Error {
  constructor(
    readonly code: DataErrorCode,
    message: string,
    readonly at: RowPlace = {},
    /** The request field to fix when it is not the file (the symbol a file without one needs). */
    readonly field?: string,
  ) {
    super(message);
    this.name = "DataInputError";
  }
}

export function placeText(at: RowPlace): string {
  if (at.line !== undefined) return `line ${at.line}`;
  if (at.rowGroup !== undefined) return `row group ${at.rowGroup}, row ${at.row ?? 0}`;
  if (at.batch !== undefined) return `record batch ${at.batch}, row ${at.row ?? 0}`;
  return "the file";
}

export function badRow(code: DataErrorCode, at: RowPlace, why: string): DataInputError {
  return new DataInputError(code, `${placeText(at)}: ${why}`, at);
}

const TIME_NAMES = ["timestamp", "time", "date", "datetime", "open_time"];
const NEEDED = ["open", "high", "low", "close", "volume"] as const;

/** Which of a file's columns hold what (names compared without case). */
export interface ColumnMap {
  time: string;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  symbol?: string;
}

/**
 * Finds the bar columns among a file's column names: a time column (timestamp, time, date,
 * datetime or open_time), open, high, low, close, volume, and optionally symbol. Columns in any
 * order; others are ignored.
 */
export function mapColumns(names: readonly string[]): ColumnMap | string {
  const byLower = new Map(names.map((n) => [n.trim().toLowerCase(), n]));
  const time = TIME_NAMES.map((n) => byLower.get(n)).find((n) => n !== undefined);
  const missing = [...(time ? [] : ["timestamp"]), ...NEEDED.filter((n) => !byLower.has(n))];
  if (missing.length > 0)
    return `the columns must include timestamp (or time, date, datetime, open_time), open, high, low, close and volume; missing ${missing.join(", ")} in ${names.join(",")}`;
  const get = (n: string) => byLower.get(n)!;
  return {
    time: time!,
    open: get("open"),
    high: get("high"),
    low: get("low"),
    close: get("close"),
    volume: get("volume"),
    symbol: byLower.get("symbol"),
  };
}

/**
 * A cell as epoch milliseconds: a Date, ISO 8601 text (UTC when it carries no offset; a bare date
 * is midnight UTC), or a number or bigint of epoch seconds, milliseconds, microseconds or
 * nanoseconds (told apart by size). NaN when it is none of these.
 */
export function toEpochMs(v: unknown): number {
  if (v instanceof Date) return v.getTime();
  if (typeof v === "bigint") return byMagnitude(Number(v));
  if (typeof v === "number") return byMagnitude(v);
  if (typeof v !== "string") return NaN;
  const s = v.trim();
  if (/^\d+(\.\d+)?$/.test(s)) return byMagnitude(Number(s));
  const iso = /[zZ]|[+-]\d\d:?\d\d$/.test(s) || !s.includes("T") ? s : `${s}Z`;
  const withZone = /^\d{4}-\d\d-\d\d$/.test(iso) ? `${iso}T00:00:00Z` : iso;
  return Date.parse(withZone);
}

function byMagnitude(n: number): number {
  if (!Number.isFinite(n)) return NaN;
  // Seconds until the year 5138; then milliseconds, microseconds, nanoseconds.
  if (n < 1e11) return n * 1000;
  if (n < 1e14) return n;
  if (n < 1e17) return Math.floor(n / 1e3);
  return Math.floor(n / 1e6);
}

export function toNumber(v: unknown): number {
  if (typeof v === "number") return v;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "string") return v.trim() === "" ? NaN : Number(v);
  return NaN;
}

/**
 * A row from cells, refused with its place when a cell is not a number or a time, or the bar is
 * impossible (a price not positive, negative volume, low and high not bracketing open and close).
 */
export function rowOf(
  code: DataErrorCode,
  at: RowPlace,
  cells: { symbol: unknown; time: unknown; values: readonly unknown[] },
): BarRow {
  const time = toEpochMs(cells.time);
  if (Number.isNaN(time))
    throw badRow(
      code,
      at,
      `timestamp ${JSON.stringify(String(cells.time))} is neither ISO 8601 nor epoch seconds or milliseconds`,
    );
  const v = cells.values.map(toNumber);
  NEEDED.forEach((name, i) => {
    if (!Number.isFinite(v[i]))
      throw badRow(
        code,
        at,
        `${name} ${JSON.stringify(String(cells.values[i] ?? ""))} is not a number`,
      );
  });
  const [open, high, low, close, volume] = v as [number, number, number, number, number];
  if (!(open > 0 && high > 0 && low > 0 && close > 0))
    throw badRow(code, at, "prices must be positive");
  if (volume < 0) throw badRow(code, at, "volume must not be negative");
  if (high < Math.max(open, close) || low > Math.min(open, close))
    throw badRow(
      code,
      at,
      `high ${high} and low ${low} must bracket open ${open} and close ${close}`,
    );
  const symbol = cells.symbol === undefined || cells.symbol === null ? "" : String(cells.symbol);
  return { symbol: symbol.trim(), time, open, high, low, close, volume, at };
}
