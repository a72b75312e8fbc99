import { randomUUID } from "node:crypto";
import { context } from "@opentelemetry/api";
import {
  subjectMatches,
  type BusMessage,
  type BusSubscription,
  type EventBus,
} from "./event-bus.js";
import { contextFromHeaders, currentTraceHeaders } from "./trace-headers.js";

/**
 * In-process bus with the JetStream semantics the services rely on: dedupe by message id,
 * durable groups that get each message once, redelivery while a handler throws.
 */
export function createMemoryBus(
  opts: { redeliveryDelayMs?: number; maxDeliveries?: number } = {},
): EventBus {
  const delay = opts.redeliveryDelayMs ?? 50;
  const maxDeliveries = opts.maxDeliveries ?? 100;
  const seen = new Set<string>();
  const log: BusMessage[] = [];
  const groups = new Map<
    string,
    {
      subject: string;
      handlers: Array<(m: BusMessage) => Promise<void>>;
      next: number;
      cursor: number;
    }
  >();
  const listeners = new Set<{ subject: string; handler: (m: BusMessage) => void }>();
  let closed = false;

  const deliver = async (
    group: { handlers: Array<(m: BusMessage) => Promise<void>>; next: number },
    m: BusMessage,
  ) => {
    for (
      let attempt = 1;
      attempt <= maxDeliveries && !closed && group.handlers.length > 0;
      attempt++
    ) {
      const handler = group.handlers[group.next++ % group.handlers.length]!;
      try {
        await context.with(contextFromHeaders(m.headers), () => handler(m));
        return;
      } catch {
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  };

  return {
    async publish(subject, data, { msgId, headers }) {
      if (closed) throw new Error("bus is closed");
      if (seen.has(msgId)) return;
      seen.add(msgId);
      const m: BusMessage = {
        id: msgId,
        subject,
        data,
        headers: { ...currentTraceHeaders(), ...headers },
      };
      log.push(m);
      for (const group of groups.values()) {
        if (!subjectMatches(group.subject, subject)) continue;
        group.cursor = log.length;
        void deliver(group, m);
      }
    },
    async subscribe(subject, { durable }, handler) {
      let group = groups.get(durable);
      if (!group) {
        group = { subject, handlers: [], next: 0, cursor: 0 };
        groups.set(durable, group);
      }
      group.handlers.push(handler);
      // A durable consumer created after publishes still gets what it missed, like JetStream.
      const backlog = log.slice(group.cursor).filter((m) => subjectMatches(subject, m.subject));
      group.cursor = log.length;
      for (const m of backlog) void deliver(group, m);
      const g = group;
      return { stop: async () => void g.handlers.splice(g.handlers.indexOf(handler), 1) };
    },
    async broadcast(subject, data, headers = {}) {
      const m: BusMessage = { id: randomUUID(), subject, data, headers };
      for (const l of listeners) if (subjectMatches(l.subject, subject)) l.handler(m);
    },
    listen(subject, handler): BusSubscription {
      const entry = { subject, handler };
      listeners.add(entry);
      return { stop: async () => void listeners.delete(entry) };
    },
    connected: () => !closed,
    async ping() {
      if (closed) throw new Error("the in-process bus is closed");
    },
    async close() {
      closed = true;
      listeners.clear();
      groups.clear();
    },
  };
}
