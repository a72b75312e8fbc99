import { PromotionService } from "@svc/gen/svc/promotion/v1/promotion_pb.js";
import { completeService, type Platform, type ServiceModule } from "@svc/lib/server";

/**
 * The promotion service. Its RPCs are declared in the contract and answer 501 naming the capability
 * until they are built (see the open issues).
 */
export async function createPromotionModule(_platform: Platform): Promise<ServiceModule> {
  return {
    name: "promotion",
    services: [PromotionService],
    routes(router) {
      router.service(PromotionService, completeService(PromotionService, {}));
    },
    async start() {},
    async stop() {},
  };
}
