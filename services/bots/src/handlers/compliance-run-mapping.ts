import { create, fromJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  ComplianceCaseSchema,
  ComplianceRunKind,
  ComplianceRunSchema,
  ComplianceRunStatus,
  StressResultSchema,
  type ComplianceRun,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import type { ComplianceRunRow } from "../store/bots.table.js";

const STATUS: Record<ComplianceRunRow["status"], ComplianceRunStatus> = {
  pending: ComplianceRunStatus.PENDING,
  running: ComplianceRunStatus.RUNNING,
  completed: ComplianceRunStatus.COMPLETED,
  failed: ComplianceRunStatus.FAILED,
};
export const KIND: Record<ComplianceRunRow["kind"], ComplianceRunKind> = {
  conformance: ComplianceRunKind.CONFORMANCE,
  stress: ComplianceRunKind.STRESS,
};
const ARTICLE: Record<ComplianceRunRow["kind"], string> = {
  conformance: "RTS 6 Art. 6",
  stress: "RTS 6 Art. 10",
};

/** Steps done of total, elapsed, and the time left at the pace so far (0 unless running). */
function progressOf(row: ComplianceRunRow, started: number, end: number) {
  const elapsedS = Number.isNaN(started) ? 0 : Math.max(0, (end - started) / 1000);
  const { cases_done: done, cases_total: total } = row;
  const remainingS =
    row.status === "running" && done > 0 && total > done ? (elapsedS * (total - done)) / done : 0;
  return { done, total, elapsedS, remainingS };
}

/** A stored run as the API shows it; elapsed runs to now while it runs, to its end after. */
export function rowToComplianceRun(row: ComplianceRunRow, slug: string): ComplianceRun {
  const ts = (d: Date | null) => (d ? timestampFromDate(new Date(d)) : undefined);
  const started = row.started_at ? new Date(row.started_at).getTime() : NaN;
  const end = row.finished_at ? new Date(row.finished_at).getTime() : Date.now();
  const cases = row.cases as Array<{ evidence?: JsonObject } & Record<string, unknown>>;
  return create(ComplianceRunSchema, {
    id: row.id,
    botId: row.bot_id,
    botSlug: slug,
    kind: KIND[row.kind],
    article: ARTICLE[row.kind],
    status: STATUS[row.status],
    taskId: row.task_id,
    version: row.version,
    versionHash: row.version_hash,
    passed: row.passed,
    cases: cases.map((c) =>
      create(ComplianceCaseSchema, {
        name: String(c.name),
        article: String(c.article),
        expected: String(c.expected),
        observed: String(c.observed),
        passed: c.passed === true,
        evidence: c.evidence,
      }),
    ),
    stress: row.stress
      ? fromJson(StressResultSchema, row.stress as JsonValue, { ignoreUnknownFields: true })
      : undefined,
    progress: progressOf(row, started, end),
    error: row.error ?? "",
    requestedBy: row.requested_by,
    createdAt: ts(row.created_at),
    startedAt: ts(row.started_at),
    finishedAt: ts(row.finished_at),
  });
}
