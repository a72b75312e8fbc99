import type { Config } from "../config/index.js";
import type { Logger } from "./logger.js";
import { startMetricsServer } from "./metrics-server.js";

let started: Promise<{ close(): Promise<void> }> | undefined;
let users = 0;

/**
 * Trace export and the metrics endpoint, once per process whatever number of platforms it opens
 * (a test opens many): both are process-wide by nature. Each caller closes its own handle.
 */
export function startProcessTelemetry(
  config: Config,
  log: Logger,
  serviceName: string,
): Promise<{ close(): Promise<void> }> {
  users++;
  started ??= (async () => {
    const { otlpEndpoint, otlpProtocol, metricsPort } = config.telemetry;
    // Imported only when asked for: the OpenTelemetry SDK and its exporters cost about 0.5 s of
    // CPU and 50 MiB at start, for a process that exports nothing.
    const traces = otlpEndpoint
      ? (await import("./trace-export.js")).startTraceExport({
          serviceName,
          endpoint: otlpEndpoint,
          protocol: otlpProtocol,
        })
      : undefined;
    if (traces)
      log.info({ endpoint: otlpEndpoint, protocol: otlpProtocol }, "exporting traces over OTLP");
    const metrics =
      metricsPort === undefined
        ? undefined
        : await startMetricsServer({ host: config.host, port: metricsPort });
    if (metrics) log.info({ url: metrics.url }, "serving Prometheus metrics");
    return {
      async close() {
        await Promise.all([traces?.shutdown(), metrics?.close()]);
      },
    };
  })();
  const process = started;
  let closed = false;
  return process.then(() => ({
    // The last platform of the process to close flushes the spans and closes the endpoint.
    async close() {
      if (closed) return;
      closed = true;
      if (--users > 0) return;
      started = undefined;
      await (await process).close();
    },
  }));
}
