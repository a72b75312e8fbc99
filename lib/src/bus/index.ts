import type { EventBus } from "./event-bus.js";
import { createMemoryBus } from "./memory-bus.js";

export type { BusMessage, BusSubscription, EventBus } from "./event-bus.js";
export { subjectMatches } from "./event-bus.js";
export { createMemoryBus };

type NatsBus = typeof import("./nats-bus.js");

/**
 * NATS JetStream. The client library is imported on first use: a process on the in-process bus
 * (npm start) no longer loads it.
 */
export async function createNatsBus(
  ...args: Parameters<NatsBus["createNatsBus"]>
): Promise<EventBus> {
  return (await import("./nats-bus.js")).createNatsBus(...args);
}
export {
  enqueueEvent,
  startOutboxRelay,
  outboxMigration,
  wakeOutboxRelays,
  type OutboxRelay,
} from "./outbox.js";
export { processOnce, processedEventsMigration } from "./process-once.js";

/** NATS JetStream when a URL is configured, the in-process bus otherwise. */
export async function openEventBus(opts: {
  url?: string;
  namespace?: string;
  stream?: string;
  subjects?: string[];
  timeoutMs?: number;
}): Promise<EventBus> {
  return opts.url
    ? createNatsBus({
        url: opts.url,
        namespace: opts.namespace,
        stream: opts.stream,
        subjects: opts.subjects,
        timeoutMs: opts.timeoutMs,
      })
    : createMemoryBus();
}
