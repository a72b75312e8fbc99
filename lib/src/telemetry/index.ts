export { createLogger, type Logger } from "./logger.js";
export { requestIdKey, requestIdFrom, REQUEST_ID_HEADER } from "./request-id.js";
export {
  tracer,
  injectTraceHeaders,
  extractTraceContext,
  currentTraceparent,
  contextFromTraceparent,
} from "./trace-context.js";
export { createLoggingInterceptor, createTracingInterceptor } from "./server-interceptors.js";
export { startProcessTelemetry } from "./process-telemetry.js";
export {
  metricsRegistry,
  killSwitchPropagation,
  killSwitchPollFailures,
  orderPathDuration,
  outboxLag,
  outboxPublished,
  runnerSessions,
  countRunnerSessions,
} from "./metrics.js";
