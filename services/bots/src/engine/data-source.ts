import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { sliceBars, type Bars } from "./bars.js";
import { parseCsvBars } from "./csv-source.js";
import { EngineInputError } from "./engine-error.js";
import { generateBars } from "./synthetic-source.js";

const DATA_DIR = fileURLToPath(new URL("../../data/", import.meta.url));
export const DEFAULT_DATA_SOURCE = "csv:sample-btc-usd-1d";

/**
 * Bars for a run: `csv:<dataset>` (a file of the bundled data folder) or `synthetic:<seed>`
 * (daily bars over the range, two years from 2022-01-01 by default), cut to [start, end).
 */
export async function loadBars(source: string, startMs?: number, endMs?: number): Promise<Bars> {
  if (startMs !== undefined && endMs !== undefined && startMs >= endMs) {
    throw new EngineInputError("invalid_range", "start must be before end", "start");
  }
  let bars: Bars;
  const csv = /^csv:([a-z0-9][a-z0-9-]{0,63})$/.exec(source);
  const synthetic = /^synthetic:(\d{1,9})$/.exec(source);
  if (csv) {
    let text: string;
    try {
      text = await readFile(`${DATA_DIR}${csv[1]}.csv`, "utf8");
    } catch {
      throw new EngineInputError(
        "invalid_parameter",
        `no dataset named ${csv[1]}; bundled: sample-btc-usd-1d`,
        "data_source",
      );
    }
    bars = parseCsvBars(text);
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
    bars = generateBars({ seed: Number(synthetic[1]), count, startMs: from });
  } else {
    throw new EngineInputError(
      "invalid_parameter",
      `data_source must be csv:<dataset> or synthetic:<seed>; got ${JSON.stringify(source)}`,
      "data_source",
    );
  }
  const cut = sliceBars(bars, startMs, endMs);
  if (cut.length < 2)
    throw new EngineInputError(
      "empty_data",
      `the data source has ${cut.length} bar(s) in the requested range; a backtest needs at least 2`,
      "start",
    );
  return cut;
}
