import { createRequire as __svcCreateRequire } from "node:module"; const require = __svcCreateRequire(import.meta.url);

// lib/src/bus/trace-headers.ts
import { context, propagation } from "@opentelemetry/api";
function currentTraceHeaders() {
  const carrier = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}
function contextFromHeaders(headers) {
  return propagation.extract(context.active(), headers);
}

export {
  currentTraceHeaders,
  contextFromHeaders
};
//# sourceMappingURL=chunk-NSXLARNB.js.map
