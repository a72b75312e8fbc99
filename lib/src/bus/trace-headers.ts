import { context, propagation, type Context } from "@opentelemetry/api";

/** The active trace context as plain headers, to travel with an event. */
export function currentTraceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/** The trace context an event carried, so its handler continues the producer's trace. */
export function contextFromHeaders(headers: Record<string, string>): Context {
  return propagation.extract(context.active(), headers);
}
