import { AsyncLocalStorage } from "node:async_hooks";
import type { Interceptor } from "@connectrpc/connect";

/** The deadline (epoch ms) of the request this code serves, when its caller sent one. */
const deadline = new AsyncLocalStorage<number>();

const GRPC_UNITS: Record<string, number> = {
  H: 3_600_000,
  M: 60_000,
  S: 1_000,
  m: 1,
  u: 1e-3,
  n: 1e-6,
};

/** A caller's timeout from the gRPC (`grpc-timeout: 250m`) or Connect (`connect-timeout-ms`) header. */
export function timeoutFromHeaders(header: Headers): number | undefined {
  const grpc = /^(\d{1,8})([HMSmun])$/.exec(header.get("grpc-timeout") ?? "");
  if (grpc) return Number(grpc[1]) * GRPC_UNITS[grpc[2]!]!;
  const connect = Number(header.get("connect-timeout-ms") ?? NaN);
  return Number.isFinite(connect) && connect >= 0 ? connect : undefined;
}

/**
 * Server interceptor: remembers for the rest of the request how long its caller will wait, so
 * a call this service makes to a peer while serving it gets only what is left (the gateway's
 * deadline reaches the last hop instead of each hop starting afresh).
 */
export const serverDeadlineInterceptor: Interceptor = (next) => (req) => {
  const ms = timeoutFromHeaders(req.header);
  return ms === undefined ? next(req) : deadline.run(Date.now() + ms, () => next(req));
};

/** What is left of the served request's deadline, or undefined outside one (or without one). */
export function remainingMs(): number | undefined {
  const at = deadline.getStore();
  return at === undefined ? undefined : at - Date.now();
}

/** Runs `fn` as if serving a request whose deadline is `ms` from now (tests, background work). */
export function withRequestDeadline<T>(ms: number, fn: () => T): T {
  return deadline.run(Date.now() + ms, fn);
}
