/** One message as a consumer sees it. */
export interface BusMessage {
  id: string;
  subject: string;
  data: Uint8Array;
  headers: Record<string, string>;
}

export interface BusSubscription {
  stop(): Promise<void>;
}

/**
 * Durable events (JetStream: at-least-once, deduplicated by message id) and non-persistent
 * broadcasts (core NATS: lowest latency, for the kill-switch signal that polling backs up).
 */
export interface EventBus {
  /** Persists and delivers; a second publish with the same msgId inside the window is dropped. */
  publish(
    subject: string,
    data: Uint8Array,
    opts: { msgId: string; headers?: Record<string, string> },
  ): Promise<void>;
  /** A durable consumer: each message reaches one member of `durable` once, redelivered while the handler throws. */
  subscribe(
    subject: string,
    opts: { durable: string },
    handler: (m: BusMessage) => Promise<void>,
  ): Promise<BusSubscription>;
  broadcast(subject: string, data: Uint8Array, headers?: Record<string, string>): Promise<void>;
  listen(subject: string, handler: (m: BusMessage) => void): BusSubscription;
  /** False while the connection to the broker is down (reconnecting); the in-process bus is always up. */
  connected(): boolean;
  /** Resolves when the broker answers a round trip within the deadline; readiness probes ask it. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** NATS-style subject match: `*` one token, `>` the rest. */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split(".");
  const s = subject.split(".");
  for (let i = 0; i < p.length; i++) {
    if (p[i] === ">") return s.length > i;
    if (i >= s.length || (p[i] !== "*" && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}
