import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  BotDeploymentSchema,
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
};

/** A deployment row as the API shows it; a failure's error becomes result_summary.error. */
export function rowToDeployment(row: DeploymentRow): BotDeployment {
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
  });
}
