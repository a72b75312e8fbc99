import type { Kysely, Transaction } from "kysely";
import type {
  BacktestResultsRow,
  BacktestTradeRow,
  BotsDatabase,
  DeploymentRow,
} from "./bots.table.js";

type Db = Kysely<BotsDatabase> | Transaction<BotsDatabase>;

/** Rows per INSERT of a run's trades: well under Postgres's 65,535 bind parameters. */
const TRADE_BATCH = 2_000;

export interface NewResults {
  deploymentId: string;
  equity: { time: number; equity: number; drawdown: number }[];
  barsPerPoint: number;
  dailyReturns: { date: string; value: number }[];
  symbol: string;
  tradesTruncated: boolean;
  trades: Array<Omit<BacktestTradeRow, "deployment_id" | "number">>;
}

/** Only SQL lives here: a finished backtest's curve, daily returns and trades. */
export async function insertResults(trx: Transaction<BotsDatabase>, r: NewResults): Promise<void> {
  await trx
    .insertInto("backtest_results")
    .values({
      deployment_id: r.deploymentId,
      equity: JSON.stringify(r.equity),
      bars_per_point: r.barsPerPoint,
      daily_returns: JSON.stringify(r.dailyReturns),
      symbol: r.symbol,
      trade_count: r.trades.length,
      trades_truncated: r.tradesTruncated,
    })
    .execute();
  for (let from = 0; from < r.trades.length; from += TRADE_BATCH) {
    await trx
      .insertInto("backtest_trades")
      .values(
        r.trades.slice(from, from + TRADE_BATCH).map((t, i) => ({
          ...t,
          deployment_id: r.deploymentId,
          number: from + i + 1,
        })),
      )
      .execute();
  }
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
