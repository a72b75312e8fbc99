import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  BacktestProgressSchema,
  BotDeploymentSchema,
  type BacktestProgress,
  DeploymentStatus,
  DeploymentTarget,
  type BotDeployment,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import type { DeploymentRow } from "../store/bots.table.js";

// A parked session is halted on the wire (the spec's value) and says it is parked.
const STATUS: Record<DeploymentRow["status"], DeploymentStatus> = {
  pending: DeploymentStatus.PENDING,
  running: DeploymentStatus.RUNNING,
  parked: DeploymentStatus.HALTED,
  success: DeploymentStatus.SUCCESS,
  failed: DeploymentStatus.FAILED,
  halted: DeploymentStatus.HALTED,
};
const TARGET: Record<DeploymentRow["target"], DeploymentTarget> = {
  backtest: DeploymentTarget.BACKTEST,
  paper: DeploymentTarget.PAPER,
  k8s: DeploymentTarget.K8S,
  live: DeploymentTarget.LIVE,
  venue_paper: DeploymentTarget.VENUE_PAPER,
};

/**
 * A deployment row as the API shows it; a failure's error becomes result_summary.error. A queued
 * backtest's `queuePosition` (backtest-queue.repository.ts) goes into its progress.
 */
export function rowToDeployment(row: DeploymentRow, queuePosition?: number): BotDeployment {
  return create(BotDeploymentSchema, {
    id: row.id,
    target: TARGET[row.target],
    status: STATUS[row.status],
    parked: row.status === "parked",
    taskId: row.task_id,
    resultSummary: (row.result_summary ?? (row.error ? { error: row.error } : undefined)) as
      JsonObject | undefined,
    version: row.version,
    createdAt: timestampFromDate(new Date(row.created_at)),
    updatedAt: timestampFromDate(new Date(row.updated_at)),
    progress: progressOf(row, queuePosition),
  });
}

/**
 * A backtest's progress: elapsed runs to now while it runs and to its last update once it
 * ended; the time left extrapolates the pace so far (0 before the first report and at the end).
 */
function progressOf(row: DeploymentRow, queuePosition = 0): BacktestProgress | undefined {
  if (row.target !== "backtest" || row.bars_total === null) return undefined;
  const done = Number(row.bars_done ?? 0);
  const total = Number(row.bars_total);
  const running = row.status === "running";
  const started = row.started_at ? new Date(row.started_at).getTime() : NaN;
  const end = running ? Date.now() : new Date(row.updated_at).getTime();
  const elapsedS = Number.isNaN(started) ? 0 : Math.max(0, (end - started) / 1000);
  const remainingS = running && done > 0 && total > done ? (elapsedS * (total - done)) / done : 0;
  return create(BacktestProgressSchema, {
    barsDone: BigInt(done),
    barsTotal: BigInt(total),
    elapsedS,
    remainingS,
    queuePosition,
  });
}
