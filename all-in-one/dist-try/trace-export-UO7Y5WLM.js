import { createRequire as __svcCreateRequire } from "node:module"; const require = __svcCreateRequire(import.meta.url);
import "./chunk-VRQZRDEA.js";

// lib/src/telemetry/trace-export.ts
import { OTLPTraceExporter as OtlpJsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as OtlpProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { NodeSDK } from "@opentelemetry/sdk-node";
function startTraceExport(o) {
  const url = `${o.endpoint.replace(/\/+$/, "")}/v1/traces`;
  const traceExporter = o.protocol === "http/json" ? new OtlpJsonExporter({ url }) : new OtlpProtobufExporter({ url });
  const sdk = new NodeSDK({ serviceName: o.serviceName, traceExporter, instrumentations: [] });
  sdk.start();
  return { shutdown: () => sdk.shutdown() };
}
export {
  startTraceExport
};
//# sourceMappingURL=trace-export-UO7Y5WLM.js.map
