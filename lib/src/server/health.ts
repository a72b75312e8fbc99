import { create } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import {
  Health,
  HealthCheckResponse_ServingStatus as Status,
  HealthCheckResponseSchema,
} from "@svc/gen/grpc/health/v1/health_pb.js";

/** A readiness probe of one dependency; false or a throw means not serving. */
export type ReadinessCheck = () => Promise<boolean>;

/**
 * The standard gRPC health service (grpc.health.v1), so Kubernetes probes and stock tooling
 * (grpc_health_probe) work. Service "" is the whole server; a named service answers for itself.
 */
export function healthRoutes(
  serviceNames: string[],
  ready: ReadinessCheck,
): (router: ConnectRouter) => void {
  const known = new Set(["", ...serviceNames]);
  const check = async (service: string) => {
    if (!known.has(service))
      return create(HealthCheckResponseSchema, { status: Status.SERVICE_UNKNOWN });
    const ok = await ready().catch(() => false);
    return create(HealthCheckResponseSchema, { status: ok ? Status.SERVING : Status.NOT_SERVING });
  };
  return (router) =>
    router.service(Health, {
      check: (req) => check(req.service),
      async *watch(req) {
        yield await check(req.service);
      },
    });
}
