import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import {
  Health,
  HealthCheckResponse_ServingStatus as Status,
} from "@svc/gen/grpc/health/v1/health_pb.js";

const ASK_EVERY_MS = 200;
const CALL_TIMEOUT_MS = 2_000;

/** Whether a service answers SERVING on the standard gRPC health service. */
export async function grpcServing(url: string): Promise<boolean> {
  const health = createClient(Health, createGrpcTransport({ baseUrl: url }));
  try {
    const answer = await health.check({ service: "" }, { timeoutMs: CALL_TIMEOUT_MS });
    return answer.status === Status.SERVING;
  } catch {
    return false;
  }
}

/** Whether the gateway's /readyz answers 200. */
export async function httpReady(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * Asks `probe` until it says yes; rejects naming `what` when `deadlineMs` passes or `gone`
 * settles first (the process died while starting).
 */
export async function waitReady(
  what: string,
  probe: () => Promise<boolean>,
  gone: Promise<unknown>,
  deadlineMs: number,
): Promise<void> {
  let dead = false;
  void gone.then(() => (dead = true));
  const end = Date.now() + deadlineMs;
  for (;;) {
    if (dead) throw new Error(`${what} exited before it was ready`);
    if (await probe()) return;
    if (Date.now() > end) throw new Error(`${what} was not ready within ${deadlineMs} ms`);
    await new Promise((r) => setTimeout(r, ASK_EVERY_MS));
  }
}
