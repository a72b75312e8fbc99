import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  BacktestLogsSchema,
  BacktestResultsSchema,
  BacktestTradeSchema,
  BotsService,
  ListBacktestTradesResponseSchema,
  StrategyLogLineSchema,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { Code, svcError } from "@svc/lib/errors";
import * as repo from "../store/bots.repository.js";
import * as results from "../store/backtest-results.repository.js";
import type { BotsDatabase, DeploymentRow, PortfolioJson } from "../store/bots.table.js";
import { botNotFound } from "./bot-errors.js";

type Handlers = Pick<
  ServiceImpl<typeof BotsService>,
  "getBacktestResults" | "listBacktestTrades" | "getBacktestLogs"
>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DEFAULT_PAGE = 100;

/** The results of finished backtests: figures and curve in one read, trades a page at a time. */
export function createBacktestResultsHandlers(db: Kysely<BotsDatabase>): Handlers {
  /** The bot's finished backtest and its results row; anything else is refused, saying why. */
  const finished = async (botRef: string, deploymentId: string) => {
    const bot = await repo.findBot(db, botRef);
    if (!bot) throw botNotFound(botRef);
    const row = UUID.test(deploymentId)
      ? await results.findBotDeployment(db, bot.id, deploymentId)
      : undefined;
    if (!row)
      throw svcError(
        Code.NotFound,
        "deployment_not_found",
        `bot "${bot.slug}" has no deployment "${deploymentId}"; GET /bots/${bot.slug}/deployments lists them`,
        { deployment_id: deploymentId },
      );
    const kept = row.target === "backtest" && row.status === "success";
    const stored = kept ? await results.findResults(db, row.id) : undefined;
    if (!stored) throw unavailable(row);
    return { row, stored };
  };

  return {
    async getBacktestResults(req) {
      const { row, stored } = await finished(req.botRef, req.deploymentId);
      const summary = (row.result_summary ?? {}) as JsonObject;
      return create(BacktestResultsSchema, {
        deploymentId: row.id,
        botId: row.bot_id,
        version: row.version,
        dataSource: String(summary.data_source ?? ""),
        metrics: summary,
        equity: stored.equity.map((p) => ({
          time: timestampFromDate(new Date(p.time)),
          equity: p.equity,
          drawdown: p.drawdown,
        })),
        downsampled: Number(stored.bars_per_point) > 1,
        barsPerPoint: BigInt(stored.bars_per_point),
        dailyReturns: stored.daily_returns,
        tradeCount: stored.trade_count,
        tradesTruncated: stored.trades_truncated,
        strategyLogs: strategyLogsOf(stored.strategy_logs),
        strategyLogsDropped: BigInt(stored.strategy_logs_dropped),
        ...portfolioOf(stored.portfolio),
      });
    },

    async getBacktestLogs(req) {
      const bot = await repo.findBot(db, req.botRef);
      if (!bot) throw botNotFound(req.botRef);
      const row = UUID.test(req.deploymentId)
        ? await results.findBotDeployment(db, bot.id, req.deploymentId)
        : undefined;
      if (!row)
        throw svcError(
          Code.NotFound,
          "deployment_not_found",
          `bot "${bot.slug}" has no deployment "${req.deploymentId}"; GET /bots/${bot.slug}/deployments lists them`,
          { deployment_id: req.deploymentId },
        );
      if (row.target !== "backtest" || (row.status !== "success" && row.status !== "failed"))
        throw svcError(
          Code.FailedPrecondition,
          "logs_unavailable",
          row.target !== "backtest"
            ? `deployment ${row.id} is a ${row.target === "paper" ? "paper session" : `${row.target} deployment`}, not a backtest; its strategy's lines are strategy_log events at GET /bots/{bot_ref}/state/events`
            : `the backtest is ${row.status}; its strategy's lines are kept once it succeeds or fails`,
          { deployment_id: row.id, target: row.target, status: row.status },
        );
      // A failed run whose strategy wrote nothing (or a built-in family) keeps no row: no lines.
      const stored = await results.findResults(db, row.id);
      return create(BacktestLogsSchema, {
        deploymentId: row.id,
        status: row.status,
        error: row.status === "failed" ? (row.error ?? "") : "",
        strategyLogs: stored ? strategyLogsOf(stored.strategy_logs) : [],
        strategyLogsDropped: BigInt(stored?.strategy_logs_dropped ?? 0),
      });
    },

    async listBacktestTrades(req) {
      const { row, stored } = await finished(req.botRef, req.deploymentId);
      const limit = req.pageSize > 0 ? req.pageSize : DEFAULT_PAGE;
      const after = req.pageToken ? numberOfToken(req.pageToken, row.id) : 0;
      const rows = await results.listTrades(db, row.id, after, limit + 1);
      const page = rows.slice(0, limit);
      return create(ListBacktestTradesResponseSchema, {
        items: page.map((t) =>
          create(BacktestTradeSchema, {
            number: t.number,
            side: t.side,
            symbol: t.symbol ?? stored.symbol,
            entryTime: timestampFromDate(new Date(t.entry_time)),
            entryPrice: t.entry_price,
            exitTime: timestampFromDate(new Date(t.exit_time)),
            exitPrice: t.exit_price,
            size: t.size,
            pnl: t.pnl,
            fees: t.fees,
            closed: t.closed,
          }),
        ),
        nextPageToken: rows.length > limit ? tokenOf(row.id, page.at(-1)!.number) : "",
        total: stored.trade_count,
      });
    },
  };
}

/** A portfolio's per-symbol figures and data gaps, as GET results serves them. */
function portfolioOf(p: PortfolioJson | null) {
  if (!p) return {};
  const n = (x: unknown) => Number(x ?? 0);
  return {
    symbols: p.symbols.map((s) => ({
      symbol: String(s.symbol),
      pnl: n(s.pnl),
      maxDrawdown: n(s.max_drawdown),
      exposure: n(s.exposure),
      turnover: n(s.turnover),
      trades: n(s.trades),
      winRate: n(s.win_rate),
      fees: n(s.fees),
      borrowCost: n(s.borrow_cost),
      units: n(s.units),
      value: n(s.value),
    })),
    gaps: p.gaps.map((g) => ({
      symbol: String(g.symbol),
      bars: BigInt(n(g.bars)),
      outside: BigInt(n(g.outside)),
      missing: BigInt(n(g.missing)),
      ...(g.first_missing
        ? { firstMissing: timestampFromDate(new Date(String(g.first_missing))) }
        : {}),
    })),
  };
}

/** Why a deployment has no results to serve: 409 naming its target and status. */
function unavailable(row: DeploymentRow) {
  const why =
    row.target !== "backtest"
      ? `it is a ${row.target === "paper" ? "paper session" : `${row.target} deployment`}, not a backtest; its events are at GET /bots/{bot_ref}/state/events`
      : row.status === "pending" || row.status === "running"
        ? `the backtest is ${row.status}; its progress is in GET /bots/{bot_ref}/deployments, and results come when it succeeds`
        : row.status === "success"
          ? "the backtest finished before results were kept; run it again"
          : `the backtest ended ${row.status}${row.error ? ` (${row.error})` : ""}, so it has no results`;
  return svcError(
    Code.FailedPrecondition,
    "results_unavailable",
    `deployment ${row.id} has no results: ${why}`,
    { deployment_id: row.id, target: row.target, status: row.status },
  );
}

/**
 * An opaque cursor: the deployment and the last trade number of the page. The deployment is in
 * it so that a token of one backtest is refused on another, rather than paging it silently.
 */
function tokenOf(deploymentId: string, number: number): string {
  return Buffer.from(`${deploymentId}:${number}`).toString("base64url");
}

function numberOfToken(token: string, deploymentId: string): number {
  const m = /^([0-9a-f-]{36}):(\d{1,9})$/.exec(Buffer.from(token, "base64url").toString("utf8"));
  if (!m || m[1] !== deploymentId)
    throw svcError(
      Code.InvalidArgument,
      "invalid_argument",
      m
        ? "page_token belongs to another backtest: pass the next_page_token of this backtest's previous page"
        : "page_token is not one this API gave out: pass the next_page_token of the previous page",
      { field: "page_token" },
    );
  return Number(m[2]);
}

/** The stored log lines of a code strategy's backtest, as the API shows them. */
function strategyLogsOf(json: string) {
  const lines = JSON.parse(json) as {
    time: number | null;
    level: string;
    message: string;
    fields?: JsonObject;
  }[];
  return lines.map((l) =>
    create(StrategyLogLineSchema, {
      ...(l.time !== null ? { time: timestampFromDate(new Date(l.time)) } : {}),
      level: l.level,
      message: l.message,
      ...(l.fields ? { fields: l.fields } : {}),
    }),
  );
}
