import type { Bars } from "../bars.js";
import { describeSource, loadBars, type SourceOptions } from "../data-source.js";
import { EngineInputError } from "../engine-error.js";
import { alignBars, type AlignedBars } from "./aligned.js";

/** Most symbols a portfolio run trades (its bars sit in memory whole, aligned on one clock). */
export const MAX_PORTFOLIO_SYMBOLS = 500;

/**
 * Whether a run of this universe over this data source is a portfolio's: more than one symbol,
 * or several data sets named (`csv:a+csv:b`). Every other run keeps the one-symbol engine, so
 * its results do not change.
 */
export function isPortfolio(symbols: readonly string[] | undefined, dataSource: string): boolean {
  return (symbols?.length ?? 0) > 1 || dataSource.includes("+");
}

/**
 * Where each symbol's bars come from: a data set of that symbol, a data set of several symbols
 * (read for this one), or synthetic bars for all; `resampleMs` when the data set's bars are finer
 * than the bot's timeframe (set by the caller that knows the bot, run-source's portfolioSource).
 */
export type PortfolioParts = { symbol: string; source: string; resampleMs?: number }[];

/** How one part is read: its own symbol of its data set, resampled where it must be. */
export function partOptions(part: PortfolioParts[number], opts: SourceOptions): SourceOptions {
  const own: SourceOptions = { ...opts, symbol: part.symbol };
  if (part.resampleMs) own.resampleMs = part.resampleMs;
  else delete own.resampleMs;
  return own;
}

/**
 * Which data set holds each symbol of the universe: `data_source` names one data set or several
 * joined by `+` (each of one symbol, or of several: a symbol column), or `synthetic:<seed>` (each
 * symbol its own seeded bars). A universe symbol no data set holds is a 400 naming every one
 * missing; so is a data set of one symbol the universe does not name, or two data sets holding
 * one symbol: no symbol is silently dropped, and none is traded on bars that are not its own. A
 * data set of several symbols may hold more than the universe: the others are not read.
 */
export async function portfolioParts(
  dataSource: string,
  universe: readonly string[],
  opts: SourceOptions = {},
): Promise<PortfolioParts> {
  if (universe.length > MAX_PORTFOLIO_SYMBOLS)
    throw new EngineInputError(
      "invalid_parameter",
      `a portfolio may hold at most ${MAX_PORTFOLIO_SYMBOLS} symbols; universe.symbols has ${universe.length}`,
      "universe.symbols",
    );
  const synthetic = /^synthetic:(\d{1,9})$/.exec(dataSource);
  if (synthetic) {
    const seed = Number(synthetic[1]);
    // Each symbol its own walk: seeds seed, seed + 1, ... in universe order.
    return universe.map((symbol, i) => ({ symbol, source: `synthetic:${(seed + i) % 1e9}` }));
  }
  const sources = dataSource.split("+");
  const bySymbol = new Map<string, string>();
  for (const source of sources) {
    if (source.startsWith("synthetic:"))
      throw new EngineInputError(
        "invalid_parameter",
        `synthetic bars cover a whole portfolio alone: give data_source synthetic:<seed>, not ${source} among data sets`,
        "data_source",
      );
    const info = await describeSource(source, opts);
    const many = (info.symbols?.length ?? 0) > 1;
    const held = many ? info.symbols!.filter((s) => universe.includes(s)) : [info.symbol];
    for (const symbol of held) {
      if (symbol === undefined) continue;
      const other = bySymbol.get(symbol);
      if (other !== undefined)
        throw new EngineInputError(
          "invalid_parameter",
          `${other} and ${source} both hold ${symbol}; name one data set per symbol`,
          "data_source",
        );
      bySymbol.set(symbol, source);
    }
  }
  const missing = universe.filter((s) => !bySymbol.has(s));
  if (missing.length > 0)
    throw new EngineInputError(
      "universe_not_covered",
      `the data does not cover the universe: no bars of ${missing.join(", ")} in ${dataSource}; upload a data set of each (or one with a symbol column) and name them all in data_source, joined by + (csv:a+csv:b)`,
      "data_source",
    );
  const extra = [...bySymbol.keys()].filter((s) => !universe.includes(s));
  if (extra.length > 0)
    throw new EngineInputError(
      "universe_not_covered",
      `${extra.map((s) => `${bySymbol.get(s)} holds ${s}`).join(", ")}, which universe.symbols does not name; add it to the universe or leave the data set out`,
      "data_source",
    );
  return universe.map((symbol) => ({ symbol, source: bySymbol.get(symbol)! }));
}

/**
 * Every symbol's bars in [start, end), aligned on one clock, gaps reported (alignBars). Each
 * symbol needs at least two bars in the range, else a 400 names it.
 */
export async function loadPortfolioBars(
  parts: PortfolioParts,
  startMs?: number,
  endMs?: number,
  opts: SourceOptions = {},
): Promise<AlignedBars> {
  const series = new Map<string, Bars>();
  for (const part of parts) {
    const { symbol, source } = part;
    try {
      series.set(symbol, await loadBars(source, startMs, endMs, partOptions(part, opts)));
    } catch (err) {
      if (err instanceof EngineInputError && err.code === "empty_data")
        throw new EngineInputError(
          "empty_data",
          `${symbol} (${source}): ${err.message}`,
          err.field,
        );
      throw err;
    }
  }
  return alignBars(series);
}
