import {
  AckPolicy,
  connect,
  DeliverPolicy,
  headers as natsHeaders,
  nanos,
  type MsgHdrs,
  type NatsConnection,
} from "nats";
import { context } from "@opentelemetry/api";
import { withDeadline } from "../deadline/index.js";
import type { BusMessage, BusSubscription, EventBus } from "./event-bus.js";
import { ensureStream } from "./ensure-stream.js";
import { contextFromHeaders, currentTraceHeaders } from "./trace-headers.js";

/**
 * NATS: JetStream for events (a stream over `subjects`, publish deduplicated by `Nats-Msg-Id`
 * within the duplicate window, durable pull consumers with explicit acks) and core NATS for
 * broadcasts.
 */
export async function createNatsBus(opts: {
  url: string;
  namespace?: string;
  stream?: string;
  subjects?: string[];
  duplicateWindowMs?: number;
  timeoutMs?: number;
}): Promise<EventBus> {
  // Services always speak of svc.<...>; a namespace moves that space (and its stream) so that
  // several environments can share one NATS server without seeing each other's events.
  const ns = opts.namespace ?? "svc";
  const out = (subject: string) => (ns === "svc" ? subject : subject.replace(/^svc\./, `${ns}.`));
  const back = (subject: string) =>
    ns === "svc" ? subject : subject.replace(new RegExp(`^${ns}\\.`), "svc.");
  const stream =
    opts.stream ?? (ns === "svc" ? "SVC_EVENTS" : `${ns.toUpperCase().replace(/-/g, "_")}_EVENTS`);
  const timeout = opts.timeoutMs ?? 2_000;
  // A server stopped with its socket open only shows by missed pings: ping every `timeout` and
  // count the connection as lost after two unanswered, so runners learn they are blind in seconds.
  const nc: NatsConnection = await connect({
    servers: opts.url,
    name: "svc",
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    timeout,
    pingInterval: timeout,
    maxPingOut: 2,
  });
  const jsm = await nc.jetstreamManager({ timeout });
  const config = {
    name: stream,
    subjects: opts.subjects ?? [`${ns}.>`],
    duplicate_window: nanos(opts.duplicateWindowMs ?? 2 * 60_000),
  };
  await ensureStream(jsm, config);
  const js = nc.jetstream({ timeout });
  let up = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect" || s.type === "reconnecting" || s.type === "staleConnection")
        up = false;
      else if (s.type === "reconnect") up = true;
    }
  })();
  const stops = new Set<() => Promise<void>>();

  return {
    async publish(subject, data, { msgId, headers }) {
      await js.publish(out(subject), data, {
        msgID: msgId,
        headers: toNats({ ...currentTraceHeaders(), ...headers }),
      });
    },
    async subscribe(subject, { durable }, handler): Promise<BusSubscription> {
      await jsm.consumers.add(stream, {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subject: out(subject),
        ack_wait: nanos(30_000),
      });
      const consumer = await js.consumers.get(stream, durable);
      const messages = await consumer.consume({ max_messages: 64 });
      const done = (async () => {
        for await (const m of messages) {
          const msg: BusMessage = {
            id: m.headers?.get("Nats-Msg-Id") ?? String(m.seq),
            subject: back(m.subject),
            data: m.data,
            headers: fromNats(m.headers),
          };
          try {
            await context.with(contextFromHeaders(msg.headers), () => handler(msg));
            m.ack();
          } catch {
            m.nak(200);
          }
        }
      })();
      const stop = async () => {
        stops.delete(stop);
        const closing = messages.close();
        // Disconnected, closing cannot complete until the server returns: do not wait for it.
        if (!up) {
          void Promise.resolve(closing).catch(() => {});
          return;
        }
        await closing;
        await done.catch(() => {});
      };
      stops.add(stop);
      return { stop };
    },
    async broadcast(subject, data, headers = {}) {
      nc.publish(out(subject), data, { headers: toNats(headers) });
    },
    listen(subject, handler): BusSubscription {
      const sub = nc.subscribe(out(subject), {
        callback: (err, m) => {
          if (!err)
            handler({
              id: "",
              subject: back(m.subject),
              data: m.data,
              headers: fromNats(m.headers),
            });
        },
      });
      return { stop: async () => sub.unsubscribe() };
    },
    connected: () => up && !nc.isClosed(),
    async ping() {
      if (!up || nc.isClosed()) throw new Error("NATS is disconnected");
      await withDeadline(nc.flush(), timeout, "NATS flush");
    },
    async close() {
      // With the server gone, draining would wait for a reconnect that may never come.
      if (!up) {
        await nc.close();
        return;
      }
      for (const stop of [...stops]) await stop();
      await nc.drain().catch(() => nc.close());
    },
  };
}

function toNats(h: Record<string, string>): MsgHdrs {
  const out = natsHeaders();
  for (const [k, v] of Object.entries(h)) out.set(k, v);
  return out;
}

function fromNats(h: MsgHdrs | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!h) return out;
  for (const k of h.keys()) out[k.toLowerCase() === "nats-msg-id" ? "Nats-Msg-Id" : k] = h.get(k);
  return out;
}
