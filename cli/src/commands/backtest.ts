import type { Command } from "commander";
import { declareAt } from "../routes/declare.js";
import { contextOf, type Ctx } from "../context.js";
import { CliExit, type Io } from "../io.js";
import { fields, number, percent } from "../output.js";
import { progressBar, progressOf, progressText } from "../progress.js";
import type { Deployment, Items } from "../wire.js";

const ENDED = new Set(["success", "failed", "halted"]);
/** A plain progress line (not a terminal) at most this often, so a log stays readable. */
const PLAIN_LINE_EVERY_MS = 1_000;

interface BacktestOptions {
  dataSource?: string;
  version?: string;
  start?: string;
  end?: string;
  watch?: boolean;
  interval: string;
}

export function registerBacktest(program: Command, io: Io): void {
  program
    .command("backtest")
    .description("backtest a bot; --watch follows it to the end with a progress bar")
    .argument("<bot>", "slug or id")
    .option("--data-source <source>", "csv:NAME (a dataset) or synthetic:SEED")
    .option("--version <n>", "a version of the bot (default: its current one)")
    .option("--start <time>", "first bar time (ISO 8601)")
    .option("--end <time>", "last bar time (ISO 8601)")
    .option("-w, --watch", "wait for the end, showing progress; exit 1 unless it succeeds")
    .option("--interval <ms>", "how often --watch asks the platform", "500")
    .addHelpText(
      "after",
      "\nExample:\n  svc backtest alpha-ma --data-source csv:sample-btc-usd-1d --watch\n",
    )
    .action(async (bot: string, o: BacktestOptions, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const body: Record<string, unknown> = {};
      if (o.dataSource) body.data_source = o.dataSource;
      if (o.version) body.version = Number(o.version);
      if (o.start) body.start = o.start;
      if (o.end) body.end = o.end;
      const accepted = await ctx.api.post<Deployment>(
        `/bots/${encodeURIComponent(bot)}/backtest`,
        body,
      );
      if (!o.watch) {
        ctx.show(
          accepted,
          () =>
            `backtest accepted: deployment ${accepted.id} (task ${accepted.task_id}), ${accepted.status}\n`,
        );
        return;
      }
      const interval = Number(o.interval);
      if (!Number.isFinite(interval) || interval < 50)
        throw new CliExit(2, `--interval must be at least 50 ms, not ${o.interval}`);
      const ended = await watch(ctx, bot, accepted, interval);
      ctx.show(ended, () => resultText(ended));
      if (ended.status !== "success") {
        const why = ended.result_summary?.error;
        throw new CliExit(1, `backtest ${ended.status}${why ? `: ${String(why)}` : ""}`);
      }
    });
  declareAt(
    program,
    "backtest",
    "POST /bots/{bot_ref}/backtest",
    "GET /bots/{bot_ref}/deployments",
  );
}

/** Polls the bot's deployments until this one ends, drawing its progress on stderr. */
async function watch(ctx: Ctx, bot: string, accepted: Deployment, intervalMs: number) {
  const bar = ctx.io.stderrIsTTY;
  try {
    return await follow(ctx, bot, accepted, intervalMs, bar);
  } finally {
    // End the bar's line, so what follows (the result, or an error) starts on its own.
    if (bar) ctx.io.err("\n");
  }
}

async function follow(
  ctx: Ctx,
  bot: string,
  accepted: Deployment,
  intervalMs: number,
  bar: boolean,
): Promise<Deployment> {
  const { io } = ctx;
  let lastLine = "";
  let lastLineAt = 0;
  for (let d = accepted; ;) {
    const progress = progressOf(d.progress);
    if (bar) {
      io.err(`\r${progress ? progressBar(progress) : d.status}\x1b[K`);
    } else {
      const line = `${d.status}${progress ? `  ${progressText(progress)}` : ""}`;
      const statusChanged = line.split(" ")[0] !== lastLine.split(" ")[0];
      if (line !== lastLine && (statusChanged || Date.now() - lastLineAt >= PLAIN_LINE_EVERY_MS)) {
        io.err(`${line}\n`);
        lastLine = line;
        lastLineAt = Date.now();
      }
    }
    if (ENDED.has(d.status)) return d;
    await io.sleep(intervalMs);
    const list = await ctx.api.get<Items<Deployment>>(
      `/bots/${encodeURIComponent(bot)}/deployments`,
    );
    const found = list.items.find((x) => x.id === accepted.id);
    if (!found) throw new CliExit(1, `deployment ${accepted.id} is gone from ${bot}'s deployments`);
    d = found;
  }
}

function resultText(d: Deployment): string {
  const s = d.result_summary ?? {};
  return fields([
    ["status", d.status],
    ["deployment", d.id],
    ["task", d.task_id],
    ["data source", s.data_source as string | undefined],
    ["bars", number(s.bars, 0)],
    ["trades", number(s.trades, 0)],
    ["total return", percent(s.total_return)],
    ["pnl", number(s.pnl)],
    ["sharpe", number(s.sharpe)],
    ["sortino", number(s.sortino)],
    ["max drawdown", percent(s.max_drawdown)],
    ["win rate", percent(s.win_rate)],
    ["fees", number(s.fees)],
    ["final equity", number(s.final_equity)],
    ["error", s.error as string | undefined],
  ]);
}
