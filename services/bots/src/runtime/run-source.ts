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
  if (info.timeframe && botTimeframe) {
    const have = timeframeMs(info.timeframe);
    const want = timeframeMs(botTimeframe);
    if (want > have && want % have === 0) opts.resampleMs = want;
    else if (want !== have)
      throw new EngineInputError(
        "timeframe_mismatch",
        `${dataSource} has ${info.timeframe} bars and the bot's universe.timeframe is ${botTimeframe}; a run resamples to a whole multiple of a data set's timeframe, never to a finer one: choose a data set of ${botTimeframe} bars or finer, or change the bot's timeframe`,
        "data_source",
      );
  }
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
 * Refuses a universe of several symbols where only one is traded (paper sessions, sweeps,
 * conformance and stress runs, for now): a 400 that says so, never the first symbol traded
 * silently. A backtest trades such a universe as a portfolio (portfolioSource).
 */
export function oneSymbolOnly(spec: BotSpec, dataSource = ""): void {
  const symbols = spec.universe?.symbols ?? [];
  if (!isPortfolio(symbols, dataSource)) return;
  throw new EngineInputError(
    "invalid_parameter",
    symbols.length > 1
      ? `universe.symbols has ${symbols.length} symbols (${symbols.slice(0, 10).join(", ")}${symbols.length > 10 ? ", ..." : ""}); only a backtest trades a universe as a portfolio yet: paper sessions, sweeps, conformance and stress runs trade one symbol, so give this one a version of one symbol`
      : `${dataSource} names several data sets; only a backtest of a universe of several symbols reads them`,
    symbols.length > 1 ? "universe.symbols" : "data_source",
  );
}

/**
 * How a portfolio's run of `spec` reads `dataSource`: which data set holds each symbol of its
 * universe (portfolioParts: a 400 names the symbols not covered), each held to the bot's
 * timeframe as a one-symbol run's data set is.
 */
export async function portfolioSource(
  db: Kysely<BotsDatabase>,
  spec: BotSpec,
  dataSource: string,
): Promise<{ opts: SourceOptions; parts: PortfolioParts }> {
  const botTimeframe = spec.universe?.timeframe || undefined;
  const opts: SourceOptions = { datasets: datasetSource(db), timeframe: botTimeframe };
  const parts = await portfolioParts(dataSource, spec.universe?.symbols ?? [], opts);
  for (const { source } of parts) {
    const info = await describeSource(source, opts);
    if (info.timeframe && botTimeframe && timeframeMs(info.timeframe) !== timeframeMs(botTimeframe))
      throw new EngineInputError(
        "timeframe_mismatch",
        `${source} has ${info.timeframe} bars and the bot's universe.timeframe is ${botTimeframe}; choose data sets of ${botTimeframe} bars or change the bot's timeframe`,
        "data_source",
      );
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
