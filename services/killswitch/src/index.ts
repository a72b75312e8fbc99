import { KillSwitchService } from "@svc/gen/svc/killswitch/v1/killswitch_pb.js";
import { completeService, type Platform, type ServiceModule } from "@svc/lib/server";

/**
 * The killswitch service. Its RPCs are declared in the contract and answer 501 naming the capability
 * until they are built (see the open issues).
 */
export async function createKillSwitchModule(_platform: Platform): Promise<ServiceModule> {
  return {
    name: "killswitch",
    services: [KillSwitchService],
    routes(router) {
      router.service(KillSwitchService, completeService(KillSwitchService, {}));
    },
    async start() {},
    async stop() {},
  };
}
