import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import {
  Health,
  HealthCheckResponse_ServingStatus as Status,
} from "@svc/gen/grpc/health/v1/health_pb.js";

/** LIVENESS_SERVICE of lib/src/server/health.ts, spelt here: the supervisor loads no server code. */
const LIVENESS_SERVICE = "liveness";

/**
 * How the supervisor tells a running child still answers, as a Kubernetes liveness probe would
 * (deploy/k8s): every `everyMs` it asks, each answer awaited `timeoutMs`; `failures` misses in a
 * row and the child is replaced. A paused or hung process is caught in about
 * failures x (everyMs + timeoutMs); a store outage is not a miss (the liveness check does not
 * touch the stores).
 */
export const LIVENESS = { everyMs: 2_000, timeoutMs: 2_000, failures: 3 };

/** Where a child's liveness is asked: its gRPC health service, or the gateway's /healthz. */
export type LivenessTarget = { grpc: string } | { http: string };

/** A probe of one child: undefined when it answered alive, else why not. */
export type LivenessProbe = () => Promise<string | undefined>;

export function livenessProbe(target: LivenessTarget, timeoutMs: number): LivenessProbe {
  if ("http" in target)
    return async () => {
      try {
        const res = await fetch(`${target.http}/healthz`, {
          signal: AbortSignal.timeout(timeoutMs),
        });
        await res.body?.cancel();
        return res.ok ? undefined : `/healthz answered ${res.status}`;
      } catch (err) {
        return `/healthz: ${(err as Error).message}`;
      }
    };
  const health = createClient(Health, createGrpcTransport({ baseUrl: target.grpc }));
  return async () => {
    try {
      const answer = await health.check({ service: LIVENESS_SERVICE }, { timeoutMs });
      return answer.status === Status.SERVING ? undefined : `health says ${Status[answer.status]}`;
    } catch (err) {
      return `health check: ${(err as Error).message}`;
    }
  };
}

/**
 * Asks `probe` every `everyMs` until `stop()`; after `failures` misses in a row calls `dead`
 * once with the last reason and stops asking.
 */
export function watchLiveness(
  probe: LivenessProbe,
  opts: { everyMs: number; failures: number },
  dead: (misses: number, lastReason: string) => void,
): { stop(): void } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let misses = 0;
  const next = () => {
    if (!stopped) timer = setTimeout(() => void ask(), opts.everyMs);
  };
  const ask = async () => {
    const why = await probe();
    if (stopped) return;
    misses = why === undefined ? 0 : misses + 1;
    if (why !== undefined && misses >= opts.failures) {
      stopped = true;
      return dead(misses, why);
    }
    next();
  };
  next();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
