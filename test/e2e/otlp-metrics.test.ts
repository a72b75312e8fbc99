import type { ChildProcess } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningPlatform } from "@svc/all-in-one";
import { approvedSession, statusOf } from "../support/paper.js";
import {
  freePort,
  startPrivateNats,
  startPrivateRedis,
  type PrivateServer,
} from "../support/private-servers.js";
import { startRunnerProcess } from "../support/runner-process.js";
import { call, createTestDatabase, startTestPlatform } from "../support/test-platform.js";
import { eventually } from "../support/until.js";

interface ExportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
}

/** An OTLP/HTTP JSON receiver, as a collector would be: keeps every span it is sent. */
async function startOtlpReceiver(): Promise<{
  url: string;
  spans: ExportedSpan[];
  close(): Promise<void>;
}> {
  const spans: ExportedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method === "POST" && req.url === "/v1/traces") {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        for (const rs of body.resourceSpans ?? []) {
          const service = (rs.resource?.attributes ?? []).find(
            (a: { key: string }) => a.key === "service.name",
          )?.value?.stringValue;
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({
                service,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? "",
                name: s.name,
              });
        }
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

const scrape = async (port: number) =>
  (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();

// The platform and a runner in two processes export to one collector: the REST call that engages
// a kill switch and the runner's halt it caused are one trace across the bus.
describe("traces over OTLP and Prometheus metrics, end to end", () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let redis: PrivateServer;
  let nats: PrivateServer;
  let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
  let p: RunningPlatform;
  let runner: ChildProcess;
  let platformMetrics: number;
  let runnerMetrics: number;

  beforeAll(async () => {
    // Export every 100 ms instead of 5 s; the SDK reads it when the platform starts it.
    process.env.OTEL_BSP_SCHEDULE_DELAY = "100";
    [db, redis, nats, receiver] = await Promise.all([
      createTestDatabase(),
      startPrivateRedis(),
      startPrivateNats(),
      startOtlpReceiver(),
    ]);
    [platformMetrics, runnerMetrics] = [await freePort(), await freePort()];
    const env = {
      SVC_DATABASE_URL: db.url,
      SVC_NATS_URL: nats.url,
      SVC_REDIS_URL: redis.url,
      SVC_KILLSWITCH_POLL_INTERVAL_S: "60",
      SVC_OTLP_ENDPOINT: receiver.url,
      SVC_OTLP_PROTOCOL: "http/json",
    };
    p = await startTestPlatform("postgres", {
      ...env,
      SVC_RUNNERS: "external",
      SVC_METRICS_PORT: String(platformMetrics),
    });
    runner = await startRunnerProcess({
      ...env,
      SVC_METRICS_PORT: String(runnerMetrics),
      OTEL_BSP_SCHEDULE_DELAY: "100",
    });
  }, 60_000);
  afterAll(async () => {
    if (runner && runner.exitCode === null) runner.kill("SIGKILL");
    await p?.close();
    await Promise.all([nats?.stop(), redis?.stop(), receiver?.close()]);
    await db?.drop();
    delete process.env.OTEL_BSP_SCHEDULE_DELAY;
  });

  it("one trace from PUT /kill-switches through the killswitch service and NATS to the runner's halt", async () => {
    await approvedSession(p, "traced", "otlp", 20);
    // Running in the runner process, not only recorded as running: bars arrive from its loop. A
    // switch engaged before the runner took the session is found by its first poll, not heard
    // on the bus, and would start a trace of its own.
    await eventually(
      "the runner process runs the session",
      async () =>
        (await call(p.url, "GET", "/bots/traced/state/events?type=bar_received&limit=10")).body
          .items?.length ?? 0,
      (n) => n > 0,
    );

    const traceId = "0af7651916cd43dd8448eb211c80319c";
    const put = await call(
      p.url,
      "PUT",
      "/kill-switches/otlp-halt",
      { scope: "fleet", target: "otlp", mode: "cancel", reason: "trace drill" },
      { traceparent: `00-${traceId}-b7ad6b7169203331-01` },
    );
    expect(put.status).toBe(200);
    await eventually(
      "the session halts",
      () => statusOf(p, "traced"),
      (s) => s === "halted",
    );

    // Each process exports its spans in batches of its own: the runner's halt can reach the
    // collector before the platform's batch that holds the request's span. Wait for all three.
    const trace = await eventually(
      "the request's span, the RPC's and the runner's halt reach the collector in one trace",
      () => receiver.spans.filter((s) => s.traceId === traceId),
      (spans) =>
        spans.some((s) => s.name === "bots.runner/halt") &&
        spans.some((s) => s.name === "svc.killswitch.v1.KillSwitchService/ApplyKillSwitch") &&
        spans.some((s) => s.name.startsWith("PUT /kill-switches")),
    );
    const byName = (name: string) => trace.find((s) => s.name === name);
    const rpc = byName("svc.killswitch.v1.KillSwitchService/ApplyKillSwitch");
    const halt = byName("bots.runner/halt")!;
    expect(trace.find((s) => s.name.startsWith("PUT /kill-switches"))?.service).toBe("svc");
    expect(rpc?.service).toBe("svc");
    // The runner is another process: it continued the trace from the broadcast, under the RPC's
    // span (the service published while serving it).
    expect(halt.service).toBe("bots-runner");
    expect(trace.map((s) => s.spanId)).toContain(halt.parentSpanId);
    expect(halt.parentSpanId).not.toBe("");
  });

  it("each process serves its own metrics: RPCs by method and code, kill-switch propagation, sessions, outbox lag", async () => {
    const platform = await scrape(platformMetrics);
    expect(platform).toMatch(
      /svc_rpc_requests_total\{rpc="svc\.killswitch\.v1\.KillSwitchService\/ApplyKillSwitch",code="ok"\} [1-9]/,
    );
    expect(platform).toMatch(
      /svc_rpc_duration_seconds_count\{rpc="svc\.bots\.v1\.BotsService\/CreateBot"\} 1\n/,
    );
    expect(platform).toMatch(/svc_outbox_published_total\{service="bots"\} [1-9]/);
    expect(platform).toMatch(/svc_outbox_lag_seconds\{service="promotion"\} \d/);

    const runnerText = await scrape(runnerMetrics);
    // One halt came by the bus: its propagation was timed once, well under the 60 s poll.
    expect(runnerText).toMatch(/svc_killswitch_propagation_seconds_count 1\n/);
    const sum = Number(/svc_killswitch_propagation_seconds_sum ([\d.e-]+)/.exec(runnerText)![1]);
    expect(sum).toBeGreaterThanOrEqual(0);
    expect(sum).toBeLessThan(30);
    expect(runnerText).toMatch(/svc_runner_sessions\{state="parked"\} 1\n/);
    expect(runnerText).toMatch(/svc_runner_sessions\{state="running"\} 0\n/);
    expect(runnerText).toMatch(/svc_order_path_seconds_count [1-9]/);

    const other = await fetch(`http://127.0.0.1:${runnerMetrics}/`);
    expect(other.status).toBe(404);
  });
});
