import { Counter, Gauge, Histogram, Registry } from "prom-client";

/**
 * The process's Prometheus metrics. One registry per process (not prom-client's global one), so
 * a test that opens several platforms in one process reads one set of series.
 */
export const metricsRegistry = new Registry();

// Latency buckets from 0.5 ms (an in-process call) to 10 s (a call that hits its deadline).
const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10,
];

export const rpcRequests = new Counter({
  name: "svc_rpc_requests_total",
  help: "RPCs served, by method (service/Method) and Connect code.",
  labelNames: ["rpc", "code"] as const,
  registers: [metricsRegistry],
});

export const rpcDuration = new Histogram({
  name: "svc_rpc_duration_seconds",
  help: "Time to serve an RPC, interceptors included, by method.",
  labelNames: ["rpc"] as const,
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

export const killSwitchPropagation = new Histogram({
  name: "svc_killswitch_propagation_seconds",
  help: "From a kill-switch key's broadcast to the runner's Draining, by what told the runner (bus or poll).",
  labelNames: ["via"] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

export const orderPathDuration = new Histogram({
  name: "svc_order_path_seconds",
  help: "A live or paper order through the risk controls and the broker, by outcome.",
  labelNames: ["outcome"] as const,
  buckets: [0.00001, 0.00005, 0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1],
  registers: [metricsRegistry],
});

export const outboxLag = new Gauge({
  name: "svc_outbox_lag_seconds",
  help: "Age of the oldest event the outbox relay found waiting on its last pass (0: none waited).",
  labelNames: ["service"] as const,
  registers: [metricsRegistry],
});

export const outboxPublished = new Counter({
  name: "svc_outbox_published_total",
  help: "Events the outbox relay published to the bus.",
  labelNames: ["service"] as const,
  registers: [metricsRegistry],
});

export const runnerSessions = new Gauge({
  name: "svc_runner_sessions",
  help: "Paper sessions this process runs, by state (running, parked under a kill switch).",
  labelNames: ["state"] as const,
  registers: [metricsRegistry],
});
