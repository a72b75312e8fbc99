import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { Logger } from "pino";
import { extractTraceContext, tracer } from "./trace-context.js";
import { REQUEST_ID_HEADER, requestIdFrom, requestIdKey } from "./request-id.js";
import { rpcDuration, rpcRequests } from "./metrics.js";
import { isStoreOutage, svcError } from "../errors/index.js";

/**
 * Outermost server interceptor: gives the call a request id, logs one line and counts it in the
 * metrics when it ends, and turns any error that is not a ConnectError into a bare `internal` one, so internals (SQL,
 * stack traces) reach the logs and never the caller.
 */
export function createLoggingInterceptor(log: Logger): Interceptor {
  return (next) => async (req) => {
    const requestId = requestIdFrom(req.header.get(REQUEST_ID_HEADER));
    req.contextValues.set(requestIdKey, requestId);
    const started = performance.now();
    const rpc = `${req.service.typeName}/${req.method.name}`;
    try {
      const res = await next(req);
      res.header.set(REQUEST_ID_HEADER, requestId);
      const ms = performance.now() - started;
      observe(rpc, "ok", ms);
      log.info({ request_id: requestId, rpc, code: "ok", ms: round(ms) }, "rpc");
      return res;
    } catch (err) {
      const known = err instanceof ConnectError;
      const out = known ? err : unknownError(err, requestId);
      out.metadata.set(REQUEST_ID_HEADER, requestId);
      const ms = performance.now() - started;
      const entry = { request_id: requestId, rpc, code: Code[out.code], ms: round(ms) };
      observe(rpc, codeName(out.code), ms);
      if (!known && out.code === Code.Unavailable)
        log.warn({ ...entry, err }, "rpc refused: a store did not answer");
      else if (known && out.code !== Code.Internal && out.code !== Code.Unknown)
        log.info({ ...entry, message: out.rawMessage }, "rpc");
      else log.error({ ...entry, err: known ? (err.cause ?? err) : err }, "rpc failed");
      throw out;
    }
  };
}

/**
 * An error no handler turned into a ConnectError: a store that did not answer in time is the
 * caller's to retry (unavailable: 503 with Retry-After at the edge); anything else is internal.
 */
function unknownError(err: unknown, requestId: string): ConnectError {
  if (isStoreOutage(err))
    return svcError(
      Code.Unavailable,
      "store_unavailable",
      `a data store this request needs did not answer in time; retry in a moment (request id ${requestId}). A change cut off this way was applied whole or not at all: read it back before sending it again`,
      {},
      { cause: err },
    );
  return new ConnectError(
    `internal error (request id ${requestId})`,
    Code.Internal,
    undefined,
    undefined,
    err,
  );
}

/** Continues the caller's trace (traceparent header) with a server span per RPC. */
export function createTracingInterceptor(): Interceptor {
  return (next) => async (req) => {
    const parent = extractTraceContext(req.header);
    const span = tracer().startSpan(
      `${req.service.typeName}/${req.method.name}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          "rpc.system": "connect_rpc",
          "rpc.service": req.service.typeName,
          "rpc.method": req.method.name,
        },
      },
      parent,
    );
    try {
      return await context.with(trace.setSpan(parent, span), () => next(req));
    } catch (err) {
      const code = err instanceof ConnectError ? Code[err.code] : "internal";
      span.setAttribute("rpc.connect_rpc.error_code", code);
      span.setStatus({ code: SpanStatusCode.ERROR, message: code });
      throw err;
    } finally {
      span.end();
    }
  };
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}

function observe(rpc: string, code: string, ms: number): void {
  rpcRequests.inc({ rpc, code });
  rpcDuration.observe({ rpc }, ms / 1000);
}

/** Connect's wire name of a code (not_found, ...), as clients and the gateway's errors spell it. */
function codeName(code: Code): string {
  return Code[code].replace(/[A-Z]/g, (c, i: number) =>
    i === 0 ? c.toLowerCase() : `_${c.toLowerCase()}`,
  );
}
