import { createServer, type Server } from "node:http";
import { collectDefaultMetrics } from "prom-client";
import { metricsRegistry } from "./metrics.js";

let defaultsCollected = false;

/**
 * GET /metrics in Prometheus's text format on its own port, apart from the API: a scraper needs
 * no token, and the API's port stays behind its auth.
 */
export async function startMetricsServer(o: {
  host: string;
  port: number;
}): Promise<{ url: string; close(): Promise<void> }> {
  if (!defaultsCollected) {
    // Process CPU, memory, event-loop lag and GC, read at scrape time.
    collectDefaultMetrics({ register: metricsRegistry, prefix: "svc_process_" });
    defaultsCollected = true;
  }
  const server: Server = createServer((req, res) => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") {
      res
        .writeHead(404, { "content-type": "text/plain" })
        .end("only GET /metrics is served here\n");
      return;
    }
    metricsRegistry.metrics().then(
      (text) => res.writeHead(200, { "content-type": metricsRegistry.contentType }).end(text),
      (err: unknown) => res.writeHead(500, { "content-type": "text/plain" }).end(String(err)),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : o.port;
  return {
    url: `http://${o.host.includes(":") ? `[${o.host}]` : o.host}:${port}/metrics`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
