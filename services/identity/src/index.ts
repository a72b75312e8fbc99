import {
  IdentityService,
  LicenseService,
  McpService,
  TenancyService,
} from "@svc/gen/svc/identity/v1/identity_pb.js";
import { completeService, type Platform, type ServiceModule } from "@svc/lib/server";
import { whoAmI } from "./handlers/whoami.js";

/**
 * The identity service: principals, login sync hooks, tenancy mappings, license leases, MCP.
 * WhoAmI is built; the rest answer 501 naming the capability until their issue is built.
 */
export async function createIdentityModule(_platform: Platform): Promise<ServiceModule> {
  return {
    name: "identity",
    services: [IdentityService, LicenseService, TenancyService, McpService],
    routes(router) {
      router.service(IdentityService, completeService(IdentityService, { whoAmI }));
      router.service(LicenseService, completeService(LicenseService, {}));
      router.service(TenancyService, completeService(TenancyService, {}));
      router.service(McpService, completeService(McpService, {}));
    },
    async start() {},
    async stop() {},
  };
}
