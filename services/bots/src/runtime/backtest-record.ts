import type { PortfolioResult } from "../engine/portfolio/portfolio-books.js";
import type { StrategyLogLine } from "../execution/kernel/index.js";
import type { RunOutcome } from "./backtest-messages.js";

/**
 * A finished run's results, serialised for the database where it was computed (the worker
 * thread): the curve, daily returns and trades are tens of thousands of numbers a run, and turning
 * them into JSON on the process's event loop is what kept `GET /bots` waiting while many runs
 * finished. On Postgres the worker writes them too (record-run.ts); on PGlite the main thread
 * only passes these strings on. The daily returns are kept once, with their dates: the
 * TrialLedger and its TrialRecorded event only count them.
 */
export interface RunRecord {
  /** [{time, equity, drawdown}] as backtest_results.equity stores it. */
  equityJson: string;
  barsPerPoint: number;
  /** [{date: YYYY-MM-DD, value}] as backtest_results.daily_returns stores it. */
  dailyReturnsJson: string;
  /** The trades as one JSON array of rows, numbered from 1: one INSERT ... FROM json. */
  tradesJson: string;
  tradeCount: number;
  tradesTruncated: boolean;
  /** A code strategy's log lines as backtest_results.strategy_logs stores them, and the dropped. */
  strategyLogsJson?: string;
  strategyLogsDropped?: number;
  /** A portfolio's per-symbol figures and data gaps, as backtest_results.portfolio stores them. */
  portfolioJson?: string;
}

/** The run's summary figures (no curve, no trades) and its record. */
export interface FinishedRun {
  metrics: Omit<RunOutcome, "results">;
  record: RunRecord;
}

export function finishedRun(outcome: RunOutcome): FinishedRun {
  const { results, strategyLogs, portfolio, ...metrics } = outcome;
  if (!results) throw new Error("a backtest's run ended without its results");
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const trades = results.trades.map((t, i) => ({
    number: i + 1,
    side: t.side,
    entry_time: new Date(t.entryTime).toISOString(),
    entry_price: t.entryPrice,
    exit_time: new Date(t.exitTime).toISOString(),
    exit_price: t.exitPrice,
    size: t.units,
    pnl: t.pnl,
    fees: t.fees,
    closed: t.closed,
    ...("symbol" in t ? { symbol: t.symbol } : {}),
  }));
  const returns = [...outcome.dailyReturns];
  return {
    metrics,
    record: {
      equityJson: JSON.stringify(results.curve.points),
      barsPerPoint: results.curve.bucketBars,
      dailyReturnsJson: JSON.stringify(
        results.dailyDates.map((d, i) => ({ date: day(d), value: returns[i]! })),
      ),
      tradesJson: JSON.stringify(trades),
      tradeCount: trades.length,
      tradesTruncated: results.tradesDropped > 0,
      ...(portfolio ? { portfolioJson: JSON.stringify(portfolioJson(portfolio)) } : {}),
      ...(strategyLogs
        ? {
            strategyLogsJson: strategyLogsJson(strategyLogs.lines),
            strategyLogsDropped: strategyLogs.dropped,
          }
        : {}),
    },
  };
}

/** A portfolio's figures as backtest_results.portfolio keeps them (snake_case, rounded). */
function portfolioJson(p: PortfolioResult) {
  const r = (x: number) => Math.round(x * 1e8) / 1e8;
  return {
    symbols: p.symbols.map((s) => ({
      symbol: s.symbol,
      pnl: r(s.pnl),
      max_drawdown: r(s.maxDrawdown),
      exposure: r(s.exposure),
      turnover: r(s.turnover),
      trades: s.trades,
      win_rate: r(s.winRate),
      fees: r(s.fees),
      borrow_cost: r(s.borrowCost),
      units: s.units,
      value: r(s.value),
    })),
    gaps: p.gaps.map((g) => ({
      symbol: g.symbol,
      bars: g.bars,
      outside: g.outside,
      missing: g.missing,
      ...(g.firstMissing !== undefined
        ? { first_missing: new Date(g.firstMissing).toISOString() }
        : {}),
    })),
  };
}

/** A strategy's log lines as backtest_results.strategy_logs stores them. */
export function strategyLogsJson(lines: readonly StrategyLogLine[]): string {
  return JSON.stringify(
    lines.map((l) => ({
      time: l.time,
      level: l.level,
      message: l.message,
      ...(l.fields ? { fields: l.fields } : {}),
    })),
  );
}
