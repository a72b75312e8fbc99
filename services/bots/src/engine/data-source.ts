import { access } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { allocateBars, sliceBars, type Bars } from "./bars.js";
import { streamCsvBars } from "./csv-source.js";
import { EngineInputError } from "./engine-error.js";
import { generateBars } from "./synthetic-source.js";

const DATA_DIR = fileURLToPath(new URL("../../data/", import.meta.url));
export const DEFAULT_DATA_SOURCE = "csv:sample-btc-usd-1d";

/**
 * The bars of a run in chunks, in time order: `csv:<dataset>` (a file of the bundled data folder,
 * read a line at a time) or `synthetic:<seed>` (daily bars over the range, two years from
 * 2022-01-01 by default), cut to [start, end). Bad input throws EngineInputError: before the
 * first chunk for the source and the range, on the chunk that holds a malformed CSV line.
 */
export async function* streamBars(
  source: string,
  startMs?: number,
  endMs?: number,
): AsyncGenerator<Bars> {
  if (startMs !== undefined && endMs !== undefined && startMs >= endMs) {
    throw new EngineInputError("invalid_range", "start must be before end", "start");
  }
  const csv = /^csv:([a-z0-9][a-z0-9-]{0,63})$/.exec(source);
  const synthetic = /^synthetic:(\d{1,9})$/.exec(source);
  if (csv) {
    const path = `${DATA_DIR}${csv[1]}.csv`;
    try {
      await access(path);
    } catch {
      throw new EngineInputError(
        "invalid_parameter",
        `no dataset named ${csv[1]}; bundled: sample-btc-usd-1d`,
        "data_source",
      );
    }
    const from = startMs ?? -Infinity;
    const to = endMs ?? Infinity;
    yield* streamCsvBars(path, (t) => t >= from && t < to);
  } else if (synthetic) {
    const from = startMs ?? Date.UTC(2022, 0, 1);
    const to = endMs ?? from + 730 * 86_400_000;
    const count = Math.ceil((to - from) / 86_400_000);
    if (count > 100_000)
      throw new EngineInputError(
        "invalid_range",
        "a synthetic daily range may span at most 100,000 days",
        "end",
      );
    yield sliceBars(
      generateBars({ seed: Number(synthetic[1]), count, startMs: from }),
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

/** All the bars of a run at once (see `streamBars`), refused when fewer than two. */
export async function loadBars(source: string, startMs?: number, endMs?: number): Promise<Bars> {
  const chunks: Bars[] = [];
  for await (const chunk of streamBars(source, startMs, endMs)) chunks.push(chunk);
  const bars = chunks.length === 1 ? chunks[0]! : concatBars(chunks);
  assertEnoughBars(bars.length);
  return bars;
}

/**
 * Reads the source through once, keeping no bar, so that a request can be refused (malformed
 * line, empty range) before it is accepted; the run then streams the bars again.
 */
export async function checkBars(source: string, startMs?: number, endMs?: number): Promise<number> {
  let count = 0;
  for await (const chunk of streamBars(source, startMs, endMs)) count += chunk.length;
  assertEnoughBars(count);
  return count;
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
