import { ComplianceService } from "@svc/gen/svc/compliance/v1/compliance_pb.js";
import { completeService, type Platform, type ServiceModule } from "@svc/lib/server";

/**
 * The compliance service. Its RPCs are declared in the contract and answer 501 naming the capability
 * until they are built (see the open issues).
 */
export async function createComplianceModule(_platform: Platform): Promise<ServiceModule> {
  return {
    name: "compliance",
    services: [ComplianceService],
    routes(router) {
      router.service(ComplianceService, completeService(ComplianceService, {}));
    },
    async start() {},
    async stop() {},
  };
}
