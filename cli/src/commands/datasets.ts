import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { declareAt } from "../routes/declare.js";
import { contextOf } from "../context.js";
import type { Io } from "../io.js";
import { readInput } from "../read-input.js";
import { fields, table, when } from "../output.js";
import type { Dataset, Items } from "../wire.js";

interface ImportOptions {
  name: string;
  timeframe: string;
  symbol?: string;
  format?: string;
}

function formatOf(source: string): string | undefined {
  const ext = /\.([a-z]+)$/i.exec(new URL(source, "file:///").pathname)?.[1]?.toLowerCase();
  return ext === "parquet" || ext === "pq"
    ? "parquet"
    : ext === "arrow" || ext === "feather"
      ? "arrow"
      : ext === "csv"
        ? "csv"
        : undefined;
}

function describe(d: Dataset): string {
  return fields([
    ["dataset", `${d.name} (backtest with --data-source ${d.data_source})`],
    ["symbols", (d.symbols ?? [d.symbol]).join(", ")],
    ["timeframe", d.timeframe],
    ["bars", String(d.bar_count)],
    ["from", when(d.first_bar_time)],
    ["to", when(d.last_bar_time)],
    ["gaps", String(d.gaps ?? 0)],
    ["digest", d.digest ?? ""],
    ["origin", d.origin ?? ""],
  ]);
}

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
      const ctx = await contextOf(cmd, io);
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
    .command("import")
    .description(
      "import a CSV, Parquet or Arrow IPC file, or have the platform stream one from a URL",
    )
    .argument("<file-or-url>", "a local file (sent inline) or an http(s) URL the platform allows")
    .requiredOption("--name <name>", "the dataset's name (a backtest reads it as csv:NAME)")
    .requiredOption("--timeframe <tf>", "bar size, for example 1m, 1h, 1d")
    .option("--symbol <symbol>", "the instrument, for a file without a symbol column")
    .option("--format <format>", "csv, parquet or arrow (default: from the file's extension)")
    .addHelpText(
      "after",
      "\nExamples:\n  svc datasets import majors.parquet --name majors-1m --timeframe 1m\n  svc datasets import https://data.example.com/exports/btc.arrow --name btc --timeframe 1m --symbol BTC-USD\n",
    )
    .action(async (source: string, o: ImportOptions, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const remote = /^https?:\/\//.test(source);
      const format = o.format ?? formatOf(source);
      const d = await ctx.api.post<Dataset>("/datasets", {
        name: o.name,
        timeframe: o.timeframe,
        ...(o.symbol ? { symbol: o.symbol } : {}),
        ...(format ? { format } : {}),
        ...(remote ? { url: source } : { data: (await readFile(source)).toString("base64") }),
      });
      ctx.show(d, () => describe(d));
    });

  datasets
    .command("show")
    .description("one dataset: symbols, timeframe, range, bars, gaps, digest")
    .argument("<name>")
    .action(async (name: string, _o: unknown, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const d = await ctx.api.get<Dataset>(`/datasets/${encodeURIComponent(name)}`);
      ctx.show(d, () => describe(d));
    });

  datasets
    .command("delete")
    .description("delete a dataset no run cites (one a backtest, trial or sweep cites is kept)")
    .argument("<name>")
    .action(async (name: string, _o: unknown, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const d = await ctx.api.delete<{ name: string; bar_count: string }>(
        `/datasets/${encodeURIComponent(name)}`,
      );
      ctx.show(d, () => `deleted ${d.name} (${d.bar_count} bars)\n`);
    });

  datasets
    .command("list")
    .description("datasets with symbol, timeframe, bars and range")
    .action(async (_o: unknown, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
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
  declareAt(program, "datasets upload", "POST /datasets");
  declareAt(program, "datasets import", "POST /datasets");
  declareAt(program, "datasets show", "GET /datasets/{name}");
  declareAt(program, "datasets delete", "DELETE /datasets/{name}");
  declareAt(program, "datasets list", "GET /datasets");
}
