import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import type { RunningPlatform } from "@svc/all-in-one";
import type { BusMessage } from "@svc/lib/bus";
import { call, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

describe("one trace from the gateway through the service to the bus", () => {
  const exporter = new InMemorySpanExporter();
  let p: RunningPlatform;
  const events: BusMessage[] = [];

  beforeAll(async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    p = await startTestPlatform("pglite");
    await p.platform.bus.subscribe(
      "svc.bots.>",
      { durable: "trace-test" },
      async (m) => void events.push(m),
    );
  });
  afterAll(async () => {
    await p?.close();
    trace.disable();
    propagation.disable();
    context.disable();
  });

  it("continues the caller's traceparent in the gateway span, the RPC span and the event headers", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const res = await call(
      p.url,
      "POST",
      "/bots",
      { name: "Traced", kind: "trading" },
      { traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    );
    expect(res.status).toBe(201);
    const created = await eventually(
      "the bot_created event is delivered",
      () => events.find((e) => e.subject === "svc.bots.bot_created"),
      (e) => e !== undefined,
    );
    expect(created?.headers.traceparent).toMatch(new RegExp(`^00-${traceId}-`));
    const spans = exporter.getFinishedSpans().filter((s) => s.spanContext().traceId === traceId);
    expect(spans.map((s) => s.name)).toEqual(
      expect.arrayContaining(["POST /bots", "svc.bots.v1.BotsService/CreateBot"]),
    );
    const rpc = spans.find((s) => s.name === "svc.bots.v1.BotsService/CreateBot")!;
    const edge = spans.find((s) => s.name === "POST /bots")!;
    expect(rpc.parentSpanContext?.spanId).toBe(edge.spanContext().spanId);
  });
});
