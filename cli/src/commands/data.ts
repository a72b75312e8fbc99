import type { Command } from "commander";
import { declareAt } from "../routes/declare.js";
import { contextOf } from "../context.js";
import type { Io } from "../io.js";
import { fields, when } from "../output.js";
import type { PullAnswer } from "../wire.js";

interface PullOptions {
  exchange: string;
  market: string;
  timeframe: string;
  since: string;
  until?: string;
  pages: string;
}

export function registerData(program: Command, io: Io): void {
  const data = program.command("data").description("bring market data into the data catalog");

  data
    .command("pull")
    .description(
      "download OHLCV bars from an exchange (ccxt fetchOHLCV) into a data set, page by page; run it again to continue after the last bar written",
    )
    .argument("<name>", "the data set to write (a backtest reads it as csv:NAME)")
    .requiredOption(
      "--exchange <id>",
      "a ccxt exchange id the platform allows, for example binance",
    )
    .requiredOption("--market <market>", "the market in ccxt notation, for example BTC/USDT")
    .requiredOption("--timeframe <tf>", "bar size, for example 1m, 1h, 1d")
    .requiredOption("--since <time>", "the first bar wanted (ISO 8601); ignored when continuing")
    .option("--until <time>", "bars before this time only (default: now)")
    .option("--pages <n>", "fetchOHLCV calls per request; the command asks until done", "100")
    .addHelpText(
      "after",
      "\nExample:\n  svc data pull btc-1m --exchange binance --market BTC/USDT --timeframe 1m --since 2024-01-01\n",
    )
    .action(async (name: string, o: PullOptions, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      let written = 0;
      let answer: PullAnswer;
      // Each request writes what it fetched; asking again continues after the last bar written.
      do {
        answer = await ctx.api.post<PullAnswer>(`/datasets/${encodeURIComponent(name)}/pull`, {
          exchange: o.exchange,
          market: o.market,
          timeframe: o.timeframe,
          since: new Date(o.since).toISOString(),
          ...(o.until ? { until: new Date(o.until).toISOString() } : {}),
          max_pages: Number(o.pages),
        });
        written += Number(answer.bars_written);
        if (!answer.complete && !ctx.json)
          io.err(
            `${name}: ${answer.dataset.bar_count} bars, up to ${when(answer.dataset.last_bar_time)}\n`,
          );
      } while (!answer.complete && Number(answer.bars_written) > 0);
      const d = answer.dataset;
      ctx.show(answer, () =>
        fields([
          ["dataset", `${d.name} (backtest with --data-source ${d.data_source})`],
          ["market", d.symbol],
          ["timeframe", d.timeframe],
          ["bars", `${d.bar_count} (${written} written now)`],
          ["from", when(d.first_bar_time)],
          ["to", when(d.last_bar_time)],
          ["gaps", String(d.gaps ?? 0)],
          ["digest", d.digest ?? ""],
        ]),
      );
    });
  declareAt(program, "data pull", "POST /datasets/{name}/pull");
}
