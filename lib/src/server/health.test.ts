import { createClient, createRouterTransport } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import {
  Health,
  HealthCheckResponse_ServingStatus as Status,
} from "@svc/gen/grpc/health/v1/health_pb.js";
import { healthRoutes, LIVENESS_SERVICE } from "./health.js";

describe("the health service", () => {
  it("with a store down, is not ready yet still alive, so a liveness probe does not restart it", async () => {
    const health = createClient(
      Health,
      createRouterTransport(healthRoutes(["svc.bots.v1.BotsService"], async () => false)),
    );
    expect((await health.check({ service: "" })).status).toBe(Status.NOT_SERVING);
    expect((await health.check({ service: LIVENESS_SERVICE })).status).toBe(Status.SERVING);
    expect((await health.check({ service: "no.such.Service" })).status).toBe(
      Status.SERVICE_UNKNOWN,
    );
  });
});
