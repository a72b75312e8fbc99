import type { Kysely } from "kysely";
import type { BotSpec } from "@svc/gen/svc/bots/v1/bots_pb.js";
import {
  DEFAULT_DATA_SOURCE,
  describeSource,
  EngineInputError,
  timeframeMs,
  type SourceOptions,
} from "../engine/index.js";
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
