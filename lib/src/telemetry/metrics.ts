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
  help: "From the killswitch service's broadcast of a key to a runner's Draining (halts the poll found are not timed).",
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [metricsRegistry],
});

export const killSwitchPollFailures = new Counter({
  name: "svc_killswitch_poll_failures_total",
  help: "Kill-switch key polls that failed or passed their deadline. The poll is a runner's fallback when a broadcast is missed: while the bus is up a runner does not count itself blind, so this is where a dead fallback shows.",
  registers: [metricsRegistry],
});

export const orderPathDuration = new Histogram({
  name: "svc_order_path_seconds",
  help: "A paper session's decision that moves its position: through the risk controls and the broker until its events are recorded.",
  buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
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

type SessionCounts = () => { running: number; parked: number };
const sessionCounters = new Set<SessionCounts>();

/** Counted at scrape time from the session managers of the process, never stale. */
export const runnerSessions = new Gauge({
  name: "svc_runner_sessions",
  help: "Paper sessions this process runs, by state (running, parked under a kill switch).",
  labelNames: ["state"] as const,
  registers: [metricsRegistry],
  collect() {
    let running = 0;
    let parked = 0;
    for (const count of sessionCounters) {
      const c = count();
      running += c.running;
      parked += c.parked;
    }
    this.set({ state: "running" }, running);
    this.set({ state: "parked" }, parked);
  },
});

/** Adds a session manager's counts to svc_runner_sessions; the returned function removes them. */
export function countRunnerSessions(count: SessionCounts): () => void {
  sessionCounters.add(count);
  return () => sessionCounters.delete(count);
}
