import type { Command } from "commander";
import { contextOf } from "../context.js";
import type { Io } from "../io.js";
import { readInput } from "../read-input.js";
import { fields, table, when } from "../output.js";
import type { Dataset, Items } from "../wire.js";

interface UploadOptions {
  name: string;
  symbol: string;
  timeframe: string;
}

export function registerDatasets(program: Command, io: Io): void {
  const datasets = program
    .command("datasets")
    .description("OHLCV datasets that backtests and paper sessions read (csv:NAME)");

  datasets
    .command("upload")
    .description("upload an OHLCV CSV as a dataset")
    .argument("<file>", "the CSV (- reads standard input)")
    .requiredOption("--name <name>", "the dataset's name (a backtest reads it as csv:NAME)")
    .requiredOption("--symbol <symbol>", "the instrument, for example BTC-USD")
    .requiredOption("--timeframe <tf>", "bar size, for example 1m, 1h, 1d")
    .addHelpText(
      "after",
      "\nExample:\n  svc datasets upload btc-1h.csv --name btc-1h --symbol BTC-USD --timeframe 1h\n",
    )
    .action(async (file: string, o: UploadOptions, cmd: Command) => {
      const ctx = contextOf(cmd, io);
      const csv = await readInput(file);
      const d = await ctx.api.post<Dataset>("/datasets", {
        name: o.name,
        symbol: o.symbol,
        timeframe: o.timeframe,
        csv,
      });
      ctx.show(d, () =>
        fields([
          ["dataset", `${d.name} (backtest with --data-source ${d.data_source})`],
          ["symbol", d.symbol],
          ["timeframe", d.timeframe],
          ["bars", String(d.bar_count)],
          ["from", when(d.first_bar_time)],
          ["to", when(d.last_bar_time)],
        ]),
      );
    });

  datasets
    .command("list")
    .description("datasets with symbol, timeframe, bars and range")
    .action(async (_o: unknown, cmd: Command) => {
      const ctx = contextOf(cmd, io);
      const answer = await ctx.api.all<Items<Dataset>>("/datasets");
      ctx.show(answer, () =>
        answer.items.length === 0
          ? "no datasets\n"
          : table(
              ["NAME", "SYMBOL", "TIMEFRAME", "BARS", "FROM", "TO", "ORIGIN"],
              answer.items.map((d) => [
                d.name,
                d.symbol,
                d.timeframe,
                String(d.bar_count),
                when(d.first_bar_time),
                when(d.last_bar_time),
                d.bundled ? "bundled" : `uploaded by ${d.created_by}`,
              ]),
            ),
      );
    });
}
