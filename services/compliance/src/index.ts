import { ComplianceService } from "@svc/gen/svc/compliance/v1/compliance_pb.js";
import { completeService, type Platform, type ServiceModule } from "@svc/lib/server";
import type { ReportSources } from "./clients/report-sources.js";
import type { StartRun } from "./clients/start-run.js";
import { createTestRunHandlers } from "./handlers/test-run-handlers.js";
import { createValidationReportHandlers } from "./handlers/validation-report-handlers.js";

export { startRunFrom, type StartRun } from "./clients/start-run.js";
export {
  reportDeadlineMs,
  reportSourcesFrom,
  type ReportSources,
} from "./clients/report-sources.js";
export { runDeadlineMs } from "./clients/bots-over-network.js";
export { REPORT_SHA_HEADER } from "./handlers/validation-report-handlers.js";
export { REPORT_SCHEMA_PATH, reportSchemaErrors } from "./report/validate-report.js";

export interface ComplianceDeps {
  /** How runs are started in the bots service; without it they answer 503. */
  startRun?: StartRun;
  /** Where reports are made from (bots service, killswitch service); without it they answer 503. */
  reportSources?: ReportSources;
}

/**
 * The compliance service: RTS 6 conformance (Art. 6) and stress (Art. 10) runs, started in the
 * bots service over Connect, and the annual validation report over the runs and the drills.
 */
export async function createComplianceModule(
  _platform: Platform,
  deps: ComplianceDeps = {},
): Promise<ServiceModule> {
  return {
    name: "compliance",
    services: [ComplianceService],
    routes(router) {
      router.service(
        ComplianceService,
        completeService(ComplianceService, {
          ...createTestRunHandlers(deps.startRun),
          ...createValidationReportHandlers(deps.reportSources),
        }),
      );
    },
    async start() {},
    async stop() {},
  };
}
