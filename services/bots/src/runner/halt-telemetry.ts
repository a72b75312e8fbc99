import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { contextFromTraceparent, killSwitchPropagation, tracer } from "@svc/lib/telemetry";
import type { Engagement } from "./kill-switch-watcher.js";

/**
 * A runner's halt as a span of the request that engaged the switch, when a broadcast carried its
 * traceparent (a poll-found key has no request to belong to: the span then starts its own trace).
 */
export async function haltSpan<T>(e: Engagement, halt: () => Promise<T>): Promise<T> {
  const parent = contextFromTraceparent(e.broadcast?.traceparent ?? "");
  const span = tracer().startSpan(
    "bots.runner/halt",
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        "svc.killswitch.key": e.key,
        "svc.killswitch.mode": e.mode,
        "svc.killswitch.via": e.broadcast ? "bus" : "poll",
      },
    },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), halt);
  } catch (err) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: String(err) });
    throw err;
  } finally {
    span.end();
  }
}

/**
 * From the killswitch service's send to this runner's Draining. Only a broadcast carries the send
 * time: a key only the poll found is not timed (its delay is the poll interval's, by design).
 */
export function observePropagation(e: Engagement | undefined): void {
  const sentAtMs = e?.broadcast?.sentAtMs ?? NaN;
  if (Number.isFinite(sentAtMs))
    killSwitchPropagation.observe(Math.max(0, Date.now() - sentAtMs) / 1000);
}
