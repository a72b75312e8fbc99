import { context, propagation, trace, type Context, type Tracer } from "@opentelemetry/api";

/** The platform's tracer; spans are no-ops until an OpenTelemetry SDK is registered. */
export function tracer(): Tracer {
  return trace.getTracer("svc");
}

/** Writes the active trace context (traceparent, baggage) into outgoing headers. */
export function injectTraceHeaders(headers: Headers, ctx: Context = context.active()): void {
  propagation.inject(ctx, headers, { set: (carrier, key, value) => carrier.set(key, value) });
}

/** Reads a caller's trace context from incoming headers. */
export function extractTraceContext(headers: Headers): Context {
  return propagation.extract(context.active(), headers, {
    get: (carrier, key) => carrier.get(key) ?? undefined,
    keys: (carrier) => [...carrier.keys()],
  });
}
