import { create } from "@bufbuild/protobuf";
import { Code, type ServiceImpl } from "@connectrpc/connect";
import {
  ComplianceRunKind,
  ComplianceRunStatus,
  type ComplianceRun,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import {
  ComplianceService,
  TestRunResultSchema,
  type TestRunResult,
} from "@svc/gen/svc/compliance/v1/compliance_pb.js";
import { principalOf } from "@svc/lib/auth";
import { svcError } from "@svc/lib/errors";
import type { StartRun } from "../clients/start-run.js";

type Handlers = Pick<ServiceImpl<typeof ComplianceService>, "runConformance" | "runStress">;

const STATUS: Record<ComplianceRunStatus, string> = {
  [ComplianceRunStatus.UNSPECIFIED]: "",
  [ComplianceRunStatus.PENDING]: "pending",
  [ComplianceRunStatus.RUNNING]: "running",
  [ComplianceRunStatus.COMPLETED]: "completed",
  [ComplianceRunStatus.FAILED]: "failed",
};

/**
 * The regulatory face of RTS 6 Articles 6 and 10: each request is checked, then started in the
 * bots service (which executes it) and answered 202 with the run as stored there.
 */
export function createTestRunHandlers(startRun: StartRun | undefined): Handlers {
  const start: StartRun = async (r) => {
    if (r.botRef.includes("\0"))
      throw svcError(
        Code.InvalidArgument,
        "invalid_argument",
        "bot_ref must not contain a NUL byte",
        {
          field: "bot_ref",
        },
      );
    if (!startRun)
      throw svcError(
        Code.Unavailable,
        "bots_unreachable",
        "the compliance service has no way to the bots service here (SVC_BOTS_URL); conformance and stress runs cannot start",
        {},
        { headers: { "retry-after": "60" } },
      );
    return startRun(r);
  };
  return {
    async runConformance(req, ctx) {
      const run = await start({
        botRef: req.botRef,
        kind: "conformance",
        peakMultiple: 0,
        requestedBy: principalOf(ctx).sub,
      });
      return toResult(run);
    },
    async runStress(req, ctx) {
      const m = req.peakMultiple;
      if (m !== 0 && (!Number.isFinite(m) || m < 1 || m > 100))
        throw svcError(
          Code.InvalidArgument,
          "invalid_parameter",
          `peak_multiple=${m} must be between 1 and 100 (RTS 6 Article 10 asks for 2, the default)`,
          { field: "peak_multiple" },
        );
      const run = await start({
        botRef: req.botRef,
        kind: "stress",
        peakMultiple: m || 2,
        requestedBy: principalOf(ctx).sub,
      });
      return toResult(run);
    },
  };
}

function toResult(run: ComplianceRun): TestRunResult {
  return create(TestRunResultSchema, {
    runId: run.id,
    article: run.article,
    passed: run.passed,
    results: {
      bot_slug: run.botSlug,
      kind: run.kind === ComplianceRunKind.STRESS ? "stress" : "conformance",
      status: STATUS[run.status],
      progress: { done: run.progress?.done ?? 0, total: run.progress?.total ?? 0 },
      requested_by: run.requestedBy,
      // Where the stored run (cases, stress results) is read once it ends.
      href: `/bots/${run.botSlug}/compliance-runs/${run.id}`,
    },
    taskId: run.taskId,
    status: STATUS[run.status],
    version: run.version,
    versionHash: run.versionHash,
  });
}
