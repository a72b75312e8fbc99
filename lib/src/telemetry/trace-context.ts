import { context, propagation, trace, type Context, type Tracer } from "@opentelemetry/api";

/** The platform's tracer; spans are no-ops until an OpenTelemetry SDK is registered. */
export function tracer(): Tracer {
  return trace.getTracer("svc");
}

/** Writes the active trace context (traceparent, baggage) into outgoing headers. */
export function injectTraceHeaders(headers: Headers, ctx: Context = context.active()): void {
  propagation.inject(ctx, headers, { set: (carrier, key, value) => carrier.set(key, value) });
}

/** The active span's W3C traceparent, or "" outside a recorded trace. */
export function currentTraceparent(): string {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? "";
}

/** The context a W3C traceparent names, to continue its trace ("" gives the active context). */
export function contextFromTraceparent(traceparent: string): Context {
  if (!traceparent) return context.active();
  return propagation.extract(context.active(), { traceparent });
}

/** Reads a caller's trace context from incoming headers. */
export function extractTraceContext(headers: Headers): Context {
  return propagation.extract(context.active(), headers, {
    get: (carrier, key) => carrier.get(key) ?? undefined,
    keys: (carrier) => [...carrier.keys()],
  });
}
