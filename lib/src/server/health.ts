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
 * The health service name a liveness probe asks: it answers SERVING whenever the process answers
 * at all, whatever its stores do. A store outage makes a service unready, never restarted; a
 * process that stops answering (hung, paused) is restarted (deploy/k8s, the distributed
 * supervisor).
 */
export const LIVENESS_SERVICE = "liveness";

/**
 * The standard gRPC health service (grpc.health.v1), so Kubernetes probes and stock tooling
 * (grpc_health_probe) work. Service "" is the whole server (ready: its stores answer); a named
 * service answers for itself; LIVENESS_SERVICE only says the process answers.
 */
export function healthRoutes(
  serviceNames: string[],
  ready: ReadinessCheck,
): (router: ConnectRouter) => void {
  const known = new Set(["", ...serviceNames]);
  const check = async (service: string) => {
    if (service === LIVENESS_SERVICE)
      return create(HealthCheckResponseSchema, { status: Status.SERVING });
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
