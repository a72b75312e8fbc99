import type { Command } from "commander";
import { contextOf, type Ctx } from "../context.js";
import { CliExit, type Io } from "../io.js";
import { fields, number, percent, table, when } from "../output.js";
import { cell, objectFields, rowsTable } from "../render.js";
import { declareRoutes } from "../routes/declare.js";
import { watchUntil, withWatch } from "../watch.js";
import type { Deployment, Items } from "../wire.js";

/** A deployment whose status changes no more (a parked paper session may still resume). */
export const DEPLOYMENT_ENDED = new Set(["success", "failed", "halted"]);

const DEPLOYMENT_COLUMNS = ["id", "target", "status", "task_id", "version", "created_at"];

interface Trade {
  number: number;
  side: string;
  symbol: string;
  entry_time: string | null;
  entry_price: number;
  exit_time: string | null;
  exit_price: number;
  size: number;
  pnl: number;
  fees: number;
  closed: boolean;
}

interface TradePage extends Items<Trade> {
  total?: number;
}

const TRADE_COLUMNS: Array<keyof Trade> = [
  "number",
  "side",
  "symbol",
  "entry_time",
  "entry_price",
  "exit_time",
  "exit_price",
  "size",
  "pnl",
  "fees",
  "closed",
];

export function registerDeployments(program: Command, io: Io): void {
  const deployments = program
    .command("deployments")
    .description("a bot's runs: list, show (--watch), results, trades (CSV), logs");
  const base = (bot: string) => `/bots/${encodeURIComponent(bot)}/deployments`;

  const list = deployments
    .command("list")
    .description("a bot's backtests, paper sessions and deployments, newest first")
    .argument("<bot>", "slug or id")
    .action(async (bot: string, _o: unknown, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const answer = await ctx.api.all<Items<Deployment>>(base(bot));
      ctx.show(answer, () => rowsTable(answer.items, DEPLOYMENT_COLUMNS));
    });
  declareRoutes(list, "GET /bots/{bot_ref}/deployments");

  const show = deployments
    .command("show")
    .description("one run of a bot: its status, progress and summary")
    .argument("<bot>", "slug or id")
    .argument("<deployment>", "the deployment's id")
    .addHelpText("after", "\nExample:\n  svc deployments show alpha-ma 6f0a07e1-... --watch\n");
  withWatch(show, "the run ends (success, failed or halted)", "1000");
  show.action(
    async (bot: string, id: string, o: { watch?: boolean; interval?: string }, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const d = await watchUntil(
        ctx,
        o,
        () => findDeployment(ctx, base(bot), bot, id),
        (d) => DEPLOYMENT_ENDED.has(d.status),
        (d) => `${d.status}${progressNote(d)}`,
      );
      ctx.show(d, () =>
        objectFields(d, [...DEPLOYMENT_COLUMNS, "updated_at", "parked", "result_summary"]),
      );
    },
  );
  declareRoutes(show, "GET /bots/{bot_ref}/deployments");

  const results = deployments
    .command("results")
    .description(
      "a finished backtest's results: figures, equity curve, daily returns (-o json|yaml exports them whole)",
    )
    .argument("<bot>", "slug or id")
    .argument("<deployment>", "the backtest's deployment id")
    .addHelpText(
      "after",
      "\nExample:\n  svc -o json deployments results alpha-ma 6f0a07e1-... > results.json\n",
    )
    .action(async (bot: string, id: string, _o: unknown, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const r = await ctx.api.get<Results>(`${base(bot)}/${encodeURIComponent(id)}/results`);
      ctx.show(r, () => resultsText(r));
    });
  declareRoutes(results, "GET /bots/{bot_ref}/deployments/{deployment_id}/results");

  const trades = deployments
    .command("trades")
    .description("a finished backtest's trades, every page: a table, CSV (--csv), JSON or YAML")
    .argument("<bot>", "slug or id")
    .argument("<deployment>", "the backtest's deployment id")
    .option("--csv", "print the trades as CSV with a header line (for a spreadsheet)")
    .addHelpText(
      "after",
      "\nExample:\n  svc deployments trades alpha-ma 6f0a07e1-... --csv > trades.csv\n",
    )
    .action(async (bot: string, id: string, o: { csv?: boolean }, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const answer = await allTrades(ctx, `${base(bot)}/${encodeURIComponent(id)}/trades`);
      if (o.csv) {
        if (ctx.json) throw new CliExit(2, "--csv is an output of its own: leave out -o/--json");
        io.out(tradesCsv(answer.items));
        return;
      }
      ctx.show(answer, () => rowsTable(answer.items, TRADE_COLUMNS));
    });
  declareRoutes(trades, "GET /bots/{bot_ref}/deployments/{deployment_id}/trades");

  const logs = deployments
    .command("logs")
    .description("a backtest's status, error and the log lines its strategy wrote")
    .argument("<bot>", "slug or id")
    .argument("<deployment>", "the backtest's deployment id")
    .action(async (bot: string, id: string, _o: unknown, cmd: Command) => {
      const ctx = await contextOf(cmd, io);
      const l = await ctx.api.get<Logs>(`${base(bot)}/${encodeURIComponent(id)}/logs`);
      ctx.show(l, () => {
        const head = fields([
          ["status", l.status],
          ["error", l.error],
          ["dropped", Number(l.strategy_logs_dropped) ? l.strategy_logs_dropped : undefined],
        ]);
        const lines = (l.strategy_logs ?? []).map(
          (x) =>
            `${when(x.time)}  ${x.level.padEnd(5)}  ${x.message}${x.fields && Object.keys(x.fields).length ? `  ${JSON.stringify(x.fields)}` : ""}\n`,
        );
        return head + (lines.length ? `\n${lines.join("")}` : "");
      });
    });
  declareRoutes(logs, "GET /bots/{bot_ref}/deployments/{deployment_id}/logs");
}

interface Results {
  deployment_id: string;
  version: number;
  data_source: string;
  metrics: Record<string, unknown> | null;
  equity?: unknown[];
  trade_count: number;
  trades_truncated?: boolean;
}

interface Logs {
  status: string;
  error: string;
  strategy_logs?: Array<{ time: string; level: string; message: string; fields?: object }>;
  strategy_logs_dropped?: number | string;
}

async function findDeployment(
  ctx: Ctx,
  path: string,
  bot: string,
  id: string,
): Promise<Deployment> {
  const found = (await ctx.api.all<Items<Deployment>>(path)).items.find(
    (d) => d.id === id || d.task_id === id,
  );
  if (!found) throw new CliExit(1, `${bot} has no deployment ${id}`);
  return found;
}

function progressNote(d: Deployment): string {
  const p = d.progress;
  if (!p?.bars_total) return "";
  return `  ${number(Number(p.bars_done ?? 0), 0)}/${number(Number(p.bars_total), 0)} bars`;
}

/** The trades route pages with page_size (not limit), so it is followed here. */
async function allTrades(ctx: Ctx, path: string): Promise<TradePage> {
  const items: Trade[] = [];
  let token = "";
  let total: number | undefined;
  do {
    const q = new URLSearchParams({ page_size: "1000", ...(token ? { page_token: token } : {}) });
    const page = await ctx.api.get<TradePage>(`${path}?${q.toString()}`);
    items.push(...page.items);
    total = page.total;
    token = page.next_page_token ?? "";
  } while (token);
  return { items, next_page_token: "", ...(total === undefined ? {} : { total }) };
}

const csvCell = (v: unknown): string => {
  const s = v === null || v === undefined ? "" : String(v);
  return /[",\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

/** RFC 4180 CSV, times as the API's ISO 8601. */
export function tradesCsv(trades: Trade[]): string {
  const lines = [TRADE_COLUMNS.join(",")];
  for (const t of trades) lines.push(TRADE_COLUMNS.map((c) => csvCell(t[c])).join(","));
  return `${lines.join("\n")}\n`;
}

function resultsText(r: Results): string {
  const m = r.metrics ?? {};
  const pct = (k: string) => percent(m[k]);
  return fields([
    ["deployment", r.deployment_id],
    ["version", r.version],
    ["data source", r.data_source],
    ["trades", r.trade_count],
    ["total return", pct("total_return")],
    ["sharpe", number(m.sharpe)],
    ["sortino", number(m.sortino)],
    ["max drawdown", pct("max_drawdown")],
    ["win rate", pct("win_rate")],
    ["equity points", r.equity?.length],
  ]).concat(
    "\n",
    table(
      ["METRIC", "VALUE"],
      Object.entries(m).map(([k, v]) => [k, cell(v)]),
    ),
  );
}
