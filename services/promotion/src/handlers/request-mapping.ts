import { create, fromJson, toJson, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  CreatePromotionRequestRequestSchema,
  PromotionKind,
  PromotionRequestSchema,
  PromotionStatus,
  RiskOutcome,
  Verdict,
  type CreatePromotionRequestRequest,
  type PromotionRequest,
} from "@svc/gen/svc/promotion/v1/promotion_pb.js";
import type { DecisionRow, PromotionStatusName, RequestRow } from "../store/promotion.table.js";
import type { PromotionKindName } from "../domain/gates.js";

const STATUS: Record<PromotionStatusName, PromotionStatus> = {
  pending: PromotionStatus.PENDING,
  approved: PromotionStatus.APPROVED,
  promoted: PromotionStatus.PROMOTED,
  rejected: PromotionStatus.REJECTED,
  denied: PromotionStatus.DENIED,
  revoked: PromotionStatus.REVOKED,
  expired: PromotionStatus.EXPIRED,
};

export function statusName(s: PromotionStatus): PromotionStatusName | undefined {
  return (Object.keys(STATUS) as PromotionStatusName[]).find((k) => STATUS[k] === s);
}

export function kindName(k: PromotionKind): PromotionKindName {
  return k === PromotionKind.ALLOCATION
    ? "allocation"
    : k === PromotionKind.DRL_POLICY
      ? "drl_policy"
      : "strategy";
}

export function verdictName(v: Verdict): "PASS" | "PASS_WITH_FINDINGS" | "FAIL" {
  return v === Verdict.FAIL
    ? "FAIL"
    : v === Verdict.PASS_WITH_FINDINGS
      ? "PASS_WITH_FINDINGS"
      : "PASS";
}

export function riskName(r: RiskOutcome): "APPROVE" | "REJECT" {
  return r === RiskOutcome.APPROVE ? "APPROVE" : "REJECT";
}

export function submittedToStored(req: CreatePromotionRequestRequest): JsonObject {
  return toJson(CreatePromotionRequestRequestSchema, req, {
    useProtoFieldName: true,
  }) as JsonObject;
}

/**
 * The stored record as the API shows it: the submitted fields, status, gates, decisions, times.
 * `submitted` is the request the row's body was written from, when the caller still holds it.
 */
export function rowToRequest(
  row: RequestRow,
  decisions: DecisionRow[],
  approvedPromotion = "",
  submitted: CreatePromotionRequestRequest = fromJson(
    CreatePromotionRequestRequestSchema,
    row.body as JsonObject,
    { ignoreUnknownFields: true },
  ),
): PromotionRequest {
  return create(PromotionRequestSchema, {
    requestId: row.request_id,
    kind: submitted.kind,
    artifact: submitted.artifact,
    allocation: submitted.allocation,
    validation: submitted.validation,
    risk: submitted.risk,
    evidence: submitted.evidence,
    requestedBy: row.requested_by,
    requiresHumanApproval: row.requires_human_approval,
    humanApproved: decisions.some((d) => d.action === "approve"),
    status: STATUS[row.status],
    gates: (row.gates as unknown as Array<{ name: string; passed: boolean; detail: string }>).map(
      (g) => ({ name: g.name, passed: g.passed, detail: g.detail }),
    ),
    decisions: decisions.map((d) => ({
      actor: d.actor,
      at: timestampFromDate(new Date(d.at)),
      action: d.action,
      note: d.note,
      acr: d.acr,
      amr: d.amr as unknown as string[],
      authTime: d.auth_time ? timestampFromDate(new Date(d.auth_time)) : undefined,
    })),
    expiresAt: row.expires_at ? timestampFromDate(new Date(row.expires_at)) : undefined,
    createdAt: timestampFromDate(new Date(row.created_at)),
    updatedAt: timestampFromDate(new Date(row.updated_at)),
    approvedPromotion,
  });
}
