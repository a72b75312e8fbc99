import { OTLPTraceExporter as OtlpJsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as OtlpProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { NodeSDK } from "@opentelemetry/sdk-node";

/**
 * Registers the OpenTelemetry SDK for this process: the spans the gateway, the services' tracing
 * interceptor, the bus and the runner already open are batched and exported over OTLP/HTTP to
 * `${endpoint}/v1/traces`. No auto-instrumentation: the platform opens its own spans where a
 * request crosses a boundary.
 */
export function startTraceExport(o: {
  serviceName: string;
  endpoint: string;
  protocol: "http/protobuf" | "http/json";
}): { shutdown(): Promise<void> } {
  const url = `${o.endpoint.replace(/\/+$/, "")}/v1/traces`;
  const traceExporter =
    o.protocol === "http/json" ? new OtlpJsonExporter({ url }) : new OtlpProtobufExporter({ url });
  const sdk = new NodeSDK({ serviceName: o.serviceName, traceExporter, instrumentations: [] });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
