import { create, toBinary } from "@bufbuild/protobuf";
import type { Kysely } from "kysely";
import { TrialRecordedSchema } from "@svc/gen/svc/events/v1/events_pb.js";
import { enqueueEvent } from "@svc/lib/bus";
import { recordWorkloadRun, RUNNER_ORIGIN } from "../audit/workload-run.js";
import type { FinishedRun } from "./backtest-record.js";
import * as backtests from "../store/backtests.repository.js";
import { insertResults } from "../store/backtest-results.repository.js";
import { recordTrial } from "../store/trials.repository.js";
import type { BotsDatabase } from "../store/bots.table.js";

export const BOTS_SCHEMA = "bots";

/** Who a run is and where it ran: what its result and trial are written under (plain data). */
export interface RunIdentity {
  id: string;
  /** The deployment's task id, which its workload_run entries name. */
  taskId: string;
  /** This process's name on the row: the write needs the run still held here. */
  hostId: string;
  botId: string;
  version: number;
  specHash: string;
  /** The family's name, or "code:" and the source digest. */
  strategyName: string;
  params: Record<string, unknown>;
  dataSource: string;
  symbol: string;
  sweepId?: string;
}

/**
 * The result and its trial, once: the write needs the row still running and held here, so a run
 * halted or taken over meanwhile records nothing, and the trial id is the deployment's own id.
 * It runs on whichever thread holds the run's results: the worker that computed them, on its own
 * connection (Postgres), or the main thread (PGlite, whose one connection it holds).
 * Returns whether it was recorded.
 */
export async function recordFinishedRun(
  db: Kysely<BotsDatabase>,
  run: RunIdentity,
  { metrics, record }: FinishedRun,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const summary = summaryOf(metrics, run.dataSource);
    if (!(await backtests.finishBacktest(trx, run.id, run.hostId, summary, metrics.bars)))
      return false;
    await insertResults(trx, { deploymentId: run.id, symbol: run.symbol, record });
    await recordWorkloadRun(trx, RUNNER_ORIGIN, {
      workload: "backtest",
      op: "stop",
      outcome: "succeeded",
      taskId: run.taskId,
      bot: { id: run.botId, version: run.version },
      reason: "finished",
      details: {
        bars: metrics.bars,
        trades: metrics.trades,
        ...(run.sweepId ? { sweep_id: run.sweepId } : {}),
      },
    });
    const params = JSON.stringify(run.params);
    const recorded = await recordTrial(trx, {
      trial_id: run.id,
      bot_id: run.botId,
      version: run.version,
      spec_hash: run.specHash,
      strategy_family: run.strategyName,
      parameters: params,
      data_source: run.dataSource,
      observations: metrics.dailyReturns.length,
      sharpe: metrics.sharpe,
    });
    if (!recorded) return true;
    // The announcement names the trial; its daily returns stay with the run's result
    // (backtest_results), where the promotion service reads them when a gate needs them.
    const ev = create(TrialRecordedSchema, {
      trialId: run.id,
      botId: run.botId,
      version: run.version,
      specHash: run.specHash,
      strategyFamily: run.strategyName,
      parametersJson: params,
      dataSource: run.dataSource,
      sharpe: metrics.sharpe,
      sweepId: run.sweepId ?? "",
      observations: metrics.dailyReturns.length,
    });
    await enqueueEvent(trx, BOTS_SCHEMA, {
      subject: "svc.bots.trial_recorded",
      type: TrialRecordedSchema.typeName,
      payload: toBinary(TrialRecordedSchema, ev),
    });
    return true;
  });
}

type Metrics = FinishedRun["metrics"];

function summaryOf(m: Metrics, dataSource: string): Record<string, unknown> {
  const r = (x: number) => Math.round(x * 1e8) / 1e8;
  return {
    data_source: dataSource,
    bars: m.bars,
    total_return: r(m.totalReturn),
    pnl: r(m.pnl),
    final_equity: r(m.finalEquity),
    sharpe: r(m.sharpe),
    sortino: r(m.sortino),
    max_drawdown: r(m.maxDrawdown),
    trades: m.trades,
    win_rate: r(m.winRate),
    exposure: r(m.exposure),
    fees: r(m.fees),
    daily_returns: m.dailyReturns.length,
    ...(m.turnover !== undefined ? { turnover: r(m.turnover) } : {}),
    ...(m.grossExposure !== undefined ? { gross_exposure: r(m.grossExposure) } : {}),
    ...(m.borrowCost !== undefined ? { borrow_cost: r(m.borrowCost) } : {}),
    ...(m.riskRejections ? { risk_rejections: m.riskRejections } : {}),
  };
}
