import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  BotRiskStateSchema,
  FleetRiskLimitsRecordSchema,
  type BotRiskState,
  type FleetRiskLimitsRecord,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import type { BotRiskStateRow, FleetRiskLimitsRow } from "../store/bots.table.js";

/** A bot's risk state as the API shows it: what disabled it, and who re-enabled it last. */
export function riskStateToProto(row: BotRiskStateRow): BotRiskState {
  return create(BotRiskStateSchema, {
    disabled: row.disabled,
    control: row.control,
    reason: row.reason,
    limit: row.limit_value,
    value: row.observed_value,
    taskId: row.task_id,
    disabledAt: timestampFromDate(new Date(row.disabled_at)),
    reEnabledBy: row.re_enabled_by ?? "",
    ...(row.re_enabled_at ? { reEnabledAt: timestampFromDate(new Date(row.re_enabled_at)) } : {}),
    reEnableReason: row.re_enable_reason ?? "",
  });
}

export function fleetLimitsToProto(row: FleetRiskLimitsRow): FleetRiskLimitsRecord {
  return create(FleetRiskLimitsRecordSchema, {
    fleet: row.fleet,
    limits: { capitalLimit: row.capital_limit, creditLimit: row.credit_limit },
    updatedBy: row.updated_by,
    updatedAt: timestampFromDate(new Date(row.updated_at)),
  });
}
