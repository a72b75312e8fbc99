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
    /** Logs and counts the call once it ended; gives the error the caller is to see. */
    const ended = (err?: unknown): ConnectError | undefined => {
      const ms = performance.now() - started;
      if (err === undefined) {
        observe(rpc, "ok", ms);
        log.info({ request_id: requestId, rpc, code: "ok", ms: round(ms) }, "rpc");
        return undefined;
      }
      const known = err instanceof ConnectError;
      const out = known ? err : connectErrorOf(err, requestId);
      out.metadata.set(REQUEST_ID_HEADER, requestId);
      const entry = { request_id: requestId, rpc, code: Code[out.code], ms: round(ms) };
      observe(rpc, codeName(out.code), ms);
      if (!known && out.code === Code.Unavailable)
        log.warn({ ...entry, err }, "rpc refused: a store did not answer");
      else if (known && out.code !== Code.Internal && out.code !== Code.Unknown)
        log.info({ ...entry, message: out.rawMessage }, "rpc");
      else log.error({ ...entry, err: known ? (err.cause ?? err) : err }, "rpc failed");
      return out;
    };
    let res;
    try {
      res = await next(req);
    } catch (err) {
      throw ended(err);
    }
    res.header.set(REQUEST_ID_HEADER, requestId);
    if (!res.stream) {
      ended();
      return res;
    }
    // A streaming handler runs as its messages are read, after `next` returned: its failures
    // (a store that hangs mid-answer) are mapped, logged and counted when the stream ends.
    return { ...res, message: endedWhenDone(res.message, ended, req.signal) };
  };
}

async function* endedWhenDone<T>(
  stream: AsyncIterable<T>,
  ended: (err?: unknown) => ConnectError | undefined,
  signal: AbortSignal,
): AsyncIterable<T> {
  let failed = false;
  try {
    yield* stream;
  } catch (err) {
    failed = true;
    throw ended(err);
  } finally {
    if (!failed)
      ended(signal.aborted ? new ConnectError("the client went away", Code.Canceled) : undefined);
  }
}

/**
 * An error no handler turned into a ConnectError: a store that did not answer in time is the
 * caller's to retry (unavailable: 503 with Retry-After at the edge); anything else is internal.
 * For an interceptor that must add to the error before the outermost one sees it (the license
 * grace header): `ConnectError.from` would make a store outage an `unknown`, a 500.
 */
export function connectErrorOf(err: unknown, requestId: string): ConnectError {
  if (isStoreOutage(err))
    return svcError(
      Code.Unavailable,
      "store_unavailable",
      `a data store this request needs did not answer in time; retry in a moment (request id ${requestId}). A change cut off this way may or may not have taken effect: read it back before sending it again`,
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
