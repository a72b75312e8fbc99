import { sql, type Kysely, type Transaction } from "kysely";
import type { RunRecord } from "../runtime/backtest-record.js";
import type {
  BacktestResultsRow,
  BacktestTradeRow,
  BotsDatabase,
  DeploymentRow,
} from "./bots.table.js";

type Db = Kysely<BotsDatabase> | Transaction<BotsDatabase>;

/** A finished run's results as the worker serialised them (runtime/backtest-record.ts). */
export interface NewResults {
  deploymentId: string;
  symbol: string;
  record: RunRecord;
}

/**
 * Only SQL lives here: a finished backtest's curve, daily returns and trades. The trades go in as
 * one JSON parameter expanded by the database, not thousands of bound values built here.
 */
export async function insertResults(trx: Transaction<BotsDatabase>, r: NewResults): Promise<void> {
  await trx
    .insertInto("backtest_results")
    .values({
      deployment_id: r.deploymentId,
      equity: r.record.equityJson,
      bars_per_point: r.record.barsPerPoint,
      daily_returns: r.record.dailyReturnsJson,
      symbol: r.symbol,
      trade_count: r.record.tradeCount,
      trades_truncated: r.record.tradesTruncated,
      ...(r.record.portfolioJson !== undefined ? { portfolio: r.record.portfolioJson } : {}),
      ...(r.record.strategyLogsJson !== undefined
        ? {
            strategy_logs: r.record.strategyLogsJson,
            strategy_logs_dropped: r.record.strategyLogsDropped ?? 0,
          }
        : {}),
    })
    .execute();
  if (r.record.tradeCount === 0) return;
  const columns = [
    "number",
    "side",
    "entry_time",
    "entry_price",
    "exit_time",
    "exit_price",
    "size",
    "pnl",
    "fees",
    "closed",
    "symbol",
  ] as const;
  const trades = sql<
    Omit<BacktestTradeRow, "deployment_id">
  >`jsonb_to_recordset(${r.record.tradesJson}::jsonb)`.as<"t">(
    sql`t(number integer, side text, entry_time timestamptz, entry_price double precision,
      exit_time timestamptz, exit_price double precision, size double precision,
      pnl double precision, fees double precision, closed boolean, symbol text)`,
  );
  await trx
    .insertInto("backtest_trades")
    .columns(["deployment_id", ...columns])
    .expression(
      trx
        .selectFrom(trades)
        .select(sql<string>`${r.deploymentId}::uuid`.as("deployment_id"))
        .select(columns.map((c) => `t.${c}` as const)),
    )
    .execute();
}

/** A deployment of one bot by its id: another bot's is not found. */
export function findBotDeployment(
  db: Db,
  botId: string,
  id: string,
): Promise<DeploymentRow | undefined> {
  return db
    .selectFrom("bot_deployments")
    .selectAll()
    .where("id", "=", id)
    .where("bot_id", "=", botId)
    .executeTakeFirst();
}

/**
 * A failed backtest's strategy log lines, written before its failure: a results row with no curve,
 * no returns and no trades, which GET .../results still refuses (the run is not `success`) and
 * GET .../logs serves.
 */
export async function insertFailedRunLogs(
  trx: Transaction<BotsDatabase>,
  r: { deploymentId: string; logsJson: string; dropped: number },
): Promise<void> {
  await trx
    .insertInto("backtest_results")
    .values({
      deployment_id: r.deploymentId,
      equity: "[]",
      bars_per_point: 1,
      daily_returns: "[]",
      symbol: "",
      trade_count: 0,
      strategy_logs: r.logsJson,
      strategy_logs_dropped: r.dropped,
    })
    .onConflict((oc) => oc.column("deployment_id").doNothing())
    .execute();
}

export function findResults(db: Db, deploymentId: string): Promise<BacktestResultsRow | undefined> {
  return db
    .selectFrom("backtest_results")
    .selectAll()
    .where("deployment_id", "=", deploymentId)
    .executeTakeFirst();
}

/** Trades after number `after`, in order: keyset paging on the primary key. */
export function listTrades(
  db: Db,
  deploymentId: string,
  after: number,
  limit: number,
): Promise<BacktestTradeRow[]> {
  return db
    .selectFrom("backtest_trades")
    .selectAll()
    .where("deployment_id", "=", deploymentId)
    .where("number", ">", after)
    .orderBy("number")
    .limit(limit)
    .execute();
}
