import { access } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { allocateBars, sliceBars, type Bars } from "./bars.js";
import { streamCsvBars } from "./csv-source.js";
import { EngineInputError } from "./engine-error.js";
import { generateBars } from "./synthetic-source.js";
import { resampleBars } from "../data/resample.js";

const DATA_DIR = fileURLToPath(new URL("../../data/", import.meta.url));
export const DEFAULT_DATA_SOURCE = "csv:sample-btc-usd-1d";

/** The data sets shipped in the data folder, with what their bars are of. */
export const BUNDLED_DATASETS: Readonly<Record<string, { symbol: string; timeframe: string }>> = {
  "sample-btc-usd-1d": { symbol: "BTC-USD", timeframe: "1d" },
};

/** Most bars a synthetic source makes, whatever the timeframe. */
export const SYNTHETIC_MAX_BARS = 100_000;
/** Bars of a synthetic source without a range: two years of daily bars, at any timeframe. */
const SYNTHETIC_DEFAULT_BARS = 730;

/** Uploaded data sets as the engine reads them; the bots service's store provides them. */
export interface DatasetSource {
  describe(
    name: string,
  ): Promise<{ symbol: string; timeframe: string; symbols?: string[] } | undefined>;
  /** One symbol's bars (the data set's first when unset) in chunks, in time order. */
  chunks(name: string, symbol?: string): AsyncIterable<Bars>;
}

export interface SourceOptions {
  /** Where `csv:<name>` finds a data set that is not bundled. */
  datasets?: DatasetSource;
  /** The bot's bar size (universe.timeframe): the synthetic source's bars; daily when unset. */
  timeframe?: string;
  /** Which symbol of a data set of several to read; its first when unset. */
  symbol?: string;
  /** A data set's bars resampled to bars of this many milliseconds on read (a coarser timeframe). */
  resampleMs?: number;
}

/** A timeframe (1s, 5m, 1h, 1d) in milliseconds. */
export function timeframeMs(timeframe: string): number {
  const m = /^([0-9]+)(s|m|h|d)$/.exec(timeframe);
  if (!m || Number(m[1]) === 0)
    throw new EngineInputError(
      "invalid_parameter",
      `timeframe must be a count and a unit (s, m, h, d), for example 1m or 1d; got ${JSON.stringify(timeframe)}`,
      "universe.timeframe",
    );
  return Number(m[1]) * { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "s"];
}

/**
 * What a source's bars are of: a data set's symbol and timeframe, or nothing said (synthetic,
 * whose bars take the bot's). An unknown data set is refused here.
 */
export async function describeSource(
  source: string,
  opts: SourceOptions = {},
): Promise<{ symbol?: string; timeframe?: string; symbols?: string[] }> {
  const csv = /^csv:([a-z0-9][a-z0-9-]{0,63})$/.exec(source);
  if (!csv) return {};
  const bundled = BUNDLED_DATASETS[csv[1]!];
  if (bundled) return bundled;
  const uploaded = await opts.datasets?.describe(csv[1]!);
  if (uploaded) return uploaded;
  throw unknownDataset(csv[1]!);
}

function unknownDataset(name: string): EngineInputError {
  return new EngineInputError(
    "invalid_parameter",
    `no dataset named ${name}; bundled: ${Object.keys(BUNDLED_DATASETS).join(", ")}; GET /datasets lists every data set`,
    "data_source",
  );
}

/**
 * The bars of a run in chunks, in time order: `csv:<dataset>` (a file of the bundled data folder,
 * read a line at a time, or an uploaded data set, read a stored chunk at a time) or
 * `synthetic:<seed>` (bars of the bot's timeframe, daily by default, over the range: 730 bars
 * from 2022-01-01 without one, at most 100,000), cut to [start, end). Bad input throws
 * EngineInputError: before the first chunk for the source and the range, on the chunk that holds
 * a malformed CSV line.
 */
export async function* streamBars(
  source: string,
  startMs?: number,
  endMs?: number,
  opts: SourceOptions = {},
): AsyncGenerator<Bars> {
  assertOrdered(startMs, endMs);
  const csv = /^csv:([a-z0-9][a-z0-9-]{0,63})$/.exec(source);
  const synthetic = /^synthetic:(\d{1,9})$/.exec(source);
  if (csv) {
    const from = startMs ?? -Infinity;
    const to = endMs ?? Infinity;
    const path = `${DATA_DIR}${csv[1]}.csv`;
    let chunks: AsyncIterable<Bars>;
    if (BUNDLED_DATASETS[csv[1]!] && (await exists(path))) chunks = streamCsvBars(path);
    else if (!opts.datasets || !(await opts.datasets.describe(csv[1]!)))
      throw unknownDataset(csv[1]!);
    else chunks = opts.datasets.chunks(csv[1]!, opts.symbol);
    if (opts.resampleMs) chunks = resampleBars(chunks, opts.resampleMs);
    for await (const chunk of chunks) {
      const kept = sliceBars(chunk, from, to);
      if (kept.length > 0) yield kept;
    }
  } else if (synthetic) {
    const { from, count, interval } = syntheticRange(startMs, endMs, opts.timeframe);
    yield sliceBars(
      generateBars({ seed: Number(synthetic[1]), count, startMs: from, intervalMs: interval }),
      startMs,
      endMs,
    );
  } else {
    throw new EngineInputError(
      "invalid_parameter",
      `data_source must be csv:<dataset> or synthetic:<seed>; got ${JSON.stringify(source)}`,
      "data_source",
    );
  }
}

/**
 * Where a synthetic run's bars start, how many there are and their spacing: bar i opens at
 * from + i * interval, every one inside [start, end), so the count needs no bar generated.
 */
function syntheticRange(
  startMs: number | undefined,
  endMs: number | undefined,
  timeframe?: string,
) {
  const interval = timeframeMs(timeframe || "1d");
  const from = startMs ?? Date.UTC(2022, 0, 1);
  const to = endMs ?? from + SYNTHETIC_DEFAULT_BARS * interval;
  const count = Math.max(0, Math.ceil((to - from) / interval));
  if (count > SYNTHETIC_MAX_BARS)
    throw new EngineInputError(
      "invalid_range",
      `a synthetic range may hold at most ${SYNTHETIC_MAX_BARS.toLocaleString("en")} bars of the bot's timeframe (${timeframe || "1d"}); this one holds ${count.toLocaleString("en")}`,
      "end",
    );
  return { from, count, interval };
}

/** All the bars of a run at once (see `streamBars`), refused when fewer than two. */
export async function loadBars(
  source: string,
  startMs?: number,
  endMs?: number,
  opts: SourceOptions = {},
): Promise<Bars> {
  const chunks: Bars[] = [];
  for await (const chunk of streamBars(source, startMs, endMs, opts)) chunks.push(chunk);
  const bars = chunks.length === 1 ? chunks[0]! : concatBars(chunks);
  assertEnoughBars(bars.length);
  return bars;
}

/**
 * Reads the source through once, keeping no bar, so that a request can be refused (malformed
 * line, empty range) before it is accepted; the run then streams the bars again.
 */
export async function checkBars(
  source: string,
  startMs?: number,
  endMs?: number,
  opts: SourceOptions = {},
): Promise<number> {
  let count = 0;
  if (/^synthetic:\d{1,9}$/.test(source)) {
    // Generated bars cannot be malformed: counting them needs none made, on the request's thread.
    assertOrdered(startMs, endMs);
    count = syntheticRange(startMs, endMs, opts.timeframe).count;
  } else {
    for await (const chunk of streamBars(source, startMs, endMs, opts)) count += chunk.length;
  }
  assertEnoughBars(count);
  return count;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

function assertOrdered(startMs?: number, endMs?: number): void {
  if (startMs !== undefined && endMs !== undefined && startMs >= endMs)
    throw new EngineInputError("invalid_range", "start must be before end", "start");
}

function assertEnoughBars(count: number): void {
  if (count < 2)
    throw new EngineInputError(
      "empty_data",
      `the data source has ${count} bar(s) in the requested range; a backtest needs at least 2`,
      "start",
    );
}

function concatBars(chunks: Bars[]): Bars {
  const all = allocateBars(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    for (const k of ["time", "open", "high", "low", "close", "volume"] as const)
      all[k].set(c[k], at);
    at += c.length;
  }
  return all;
}
