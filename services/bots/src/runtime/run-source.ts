import type { Kysely } from "kysely";
import type { BotSpec } from "@svc/gen/svc/bots/v1/bots_pb.js";
import {
  DEFAULT_DATA_SOURCE,
  describeSource,
  EngineInputError,
  timeframeMs,
  type SourceOptions,
} from "../engine/index.js";
import {
  isPortfolio,
  portfolioParts,
  type PortfolioParts,
} from "../engine/portfolio/portfolio-source.js";
import { datasetSource } from "../store/datasets.repository.js";
import type { BotsDatabase } from "../store/bots.table.js";

/**
 * The data source of a run that names none: the bundled daily data set for a daily bot (or one
 * that says no timeframe), synthetic bars at the bot's own timeframe otherwise, since no bundled
 * data set has them.
 */
export function defaultDataSource(spec: BotSpec): string {
  const tf = spec.universe?.timeframe;
  return !tf || timeframeMs(tf) === 86_400_000 ? DEFAULT_DATA_SOURCE : "synthetic:1";
}

/**
 * How a run of `spec` reads `dataSource`, and the symbol its records name: the data set's (of a
 * data set of several symbols, the bot's first universe symbol), or for synthetic bars the bot's
 * first symbol. A data set of finer bars than the bot's timeframe is resampled on read when the
 * bot's is a whole multiple of it (1h of a 1m data set); any other difference is refused, naming
 * both (bars of another size would silently change what the strategy means).
 */
export async function runSource(
  db: Kysely<BotsDatabase>,
  spec: BotSpec,
  dataSource: string,
): Promise<{ opts: SourceOptions; symbol: string }> {
  oneSymbolOnly(spec, dataSource);
  const botTimeframe = spec.universe?.timeframe || undefined;
  const opts: SourceOptions = { datasets: datasetSource(db), timeframe: botTimeframe };
  const info = await describeSource(dataSource, opts);
  const resampleMs = resampleTo(dataSource, info.timeframe, botTimeframe);
  if (resampleMs) opts.resampleMs = resampleMs;
  const symbols = info.symbols ?? [];
  if (symbols.length > 1) {
    const wanted = spec.universe?.symbols[0];
    if (!wanted || !symbols.includes(wanted))
      throw new EngineInputError(
        "invalid_parameter",
        `${dataSource} holds ${symbols.join(", ")}; the bot's first universe symbol (${wanted || "none"}) must be one of them`,
        "data_source",
      );
    opts.symbol = wanted;
    return { opts, symbol: wanted };
  }
  return { opts, symbol: info.symbol ?? spec.universe?.symbols[0] ?? "ASSET" };
}

/**
 * The bar size a data set of `have` bars is resampled to on read for a bot of `want` bars: none
 * when they are the same (or either is unsaid), the bot's when it is a whole multiple of the data
 * set's; any other difference is refused, naming both (bars of another size would silently
 * change what the strategy means).
 */
function resampleTo(source: string, have?: string, want?: string): number | undefined {
  if (!have || !want) return undefined;
  const haveMs = timeframeMs(have);
  const wantMs = timeframeMs(want);
  if (wantMs === haveMs) return undefined;
  if (wantMs > haveMs && wantMs % haveMs === 0) return wantMs;
  throw new EngineInputError(
    "timeframe_mismatch",
    `${source} has ${have} bars and the bot's universe.timeframe is ${want}; a run resamples to a whole multiple of a data set's timeframe, never to a finer one: choose a data set of ${want} bars or finer, or change the bot's timeframe`,
    "data_source",
  );
}

/**
 * Refuses a universe of several symbols where only one is traded (sweeps and stress runs, for
 * now): a 400 that says so, never the first symbol traded silently. A backtest, a paper session
 * and a conformance run trade such a universe as a portfolio.
 */
export function oneSymbolOnly(spec: BotSpec, dataSource = ""): void {
  const symbols = spec.universe?.symbols ?? [];
  if (!isPortfolio(symbols, dataSource)) return;
  throw new EngineInputError(
    "invalid_parameter",
    symbols.length > 1
      ? `universe.symbols has ${symbols.length} symbols (${symbols.slice(0, 10).join(", ")}${symbols.length > 10 ? ", ..." : ""}); backtests, paper sessions and conformance runs trade a universe as a portfolio, but sweeps and stress runs trade one symbol yet (a sweep's trials and a stress replay drive one symbol's strategy and order path), so give this one a version of one symbol`
      : `${dataSource} names several data sets; only a backtest or a paper session of a universe of several symbols reads them`,
    symbols.length > 1 ? "universe.symbols" : "data_source",
  );
}

/**
 * What a paper session of a universe cannot do yet, refused with a 400 before it starts: a
 * strategy of code (a resumed session restarts its sandbox from a snapshot of one symbol's
 * state), and a borrow cost (the session's events carry no borrow charge, so a resumed session's
 * cash would not hold it).
 */
export function paperPortfolioOnly(spec: BotSpec, dataSource: string): void {
  if (!isPortfolio(spec.universe?.symbols, dataSource)) return;
  if (spec.strategy?.code)
    throw new EngineInputError(
      "invalid_parameter",
      "a paper session of a universe of several symbols runs a built-in family: a strategy of code trades a universe in backtests only yet (a resumed session restarts its sandbox from one symbol's snapshot)",
      "universe.symbols",
    );
  if ((spec.engine?.borrowBps ?? 0) > 0)
    throw new EngineInputError(
      "invalid_parameter",
      "a paper session charges no borrow cost yet (its events would not hold it across a restart): set engine.borrow_bps to 0 for a paper session, or backtest it",
      "engine.borrow_bps",
    );
}

/**
 * How a portfolio's run of `spec` reads `dataSource`: which data set holds each symbol of its
 * universe (portfolioParts: a 400 names the symbols not covered), each held to the bot's
 * timeframe (resampled on read) as a one-symbol run's data set is.
 */
export async function portfolioSource(
  db: Kysely<BotsDatabase>,
  spec: BotSpec,
  dataSource: string,
): Promise<{ opts: SourceOptions; parts: PortfolioParts }> {
  const botTimeframe = spec.universe?.timeframe || undefined;
  const opts: SourceOptions = { datasets: datasetSource(db), timeframe: botTimeframe };
  const parts = await portfolioParts(dataSource, spec.universe?.symbols ?? [], opts);
  for (const part of parts) {
    const info = await describeSource(part.source, opts);
    const resampleMs = resampleTo(part.source, info.timeframe, botTimeframe);
    if (resampleMs) part.resampleMs = resampleMs;
  }
  return { opts, parts };
}

/** What a portfolio's run takes from the spec's engine besides a one-symbol run's settings. */
export function portfolioEngine(spec: BotSpec) {
  const symbolCosts: Record<string, { feeBps?: number; slippageBps?: number }> = {};
  const universe = spec.universe?.symbols ?? [];
  for (const c of spec.engine?.symbolCosts ?? []) {
    // A cost of a symbol the run does not trade would be silently unused: said instead.
    if (!universe.includes(c.symbol))
      throw new EngineInputError(
        "invalid_parameter",
        `engine.symbol_costs names ${c.symbol}, which universe.symbols does not hold`,
        "engine.symbol_costs",
      );
    symbolCosts[c.symbol] = { feeBps: c.feeBps, slippageBps: c.slippageBps };
  }
  return {
    allowShort: spec.engine?.allowShort ?? false,
    borrowBps: spec.engine?.borrowBps ?? 0,
    symbolCosts,
  };
}
