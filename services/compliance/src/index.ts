import { ComplianceService } from "@svc/gen/svc/compliance/v1/compliance_pb.js";
import { completeService, type Platform, type ServiceModule } from "@svc/lib/server";
import type { StartRun } from "./clients/start-run.js";
import { createTestRunHandlers } from "./handlers/test-run-handlers.js";

export { startRunFrom, type StartRun } from "./clients/start-run.js";
export { runDeadlineMs } from "./clients/bots-over-network.js";

export interface ComplianceDeps {
  /** How runs are started in the bots service; without it they answer 503. */
  startRun?: StartRun;
}

/**
 * The compliance service: RTS 6 conformance (Art. 6) and stress (Art. 10) runs, started in the
 * bots service over Connect. The validation report answers 501 until it is built.
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
        completeService(ComplianceService, createTestRunHandlers(deps.startRun)),
      );
    },
    async start() {},
    async stop() {},
  };
}
