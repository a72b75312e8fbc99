import { createRequire as __svcCreateRequire } from "node:module"; const require = __svcCreateRequire(import.meta.url);
import {
  contextFromHeaders,
  currentTraceHeaders
} from "./chunk-NSXLARNB.js";
import {
  withDeadline
} from "./chunk-WHDG35AA.js";
import "./chunk-VRQZRDEA.js";

// lib/src/bus/nats-bus.ts
import {
  AckPolicy,
  connect,
  DeliverPolicy,
  headers as natsHeaders,
  nanos
} from "nats";
import { context } from "@opentelemetry/api";
async function createNatsBus(opts) {
  const ns = opts.namespace ?? "svc";
  const out = (subject) => ns === "svc" ? subject : subject.replace(/^svc\./, `${ns}.`);
  const back = (subject) => ns === "svc" ? subject : subject.replace(new RegExp(`^${ns}\\.`), "svc.");
  const stream = opts.stream ?? (ns === "svc" ? "SVC_EVENTS" : `${ns.toUpperCase().replace(/-/g, "_")}_EVENTS`);
  const timeout = opts.timeoutMs ?? 2e3;
  const nc = await connect({
    servers: opts.url,
    name: "svc",
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    timeout,
    pingInterval: timeout,
    maxPingOut: 2
  });
  const jsm = await nc.jetstreamManager({ timeout });
  const config = {
    name: stream,
    subjects: opts.subjects ?? [`${ns}.>`],
    duplicate_window: nanos(opts.duplicateWindowMs ?? 2 * 6e4)
  };
  try {
    await jsm.streams.info(stream);
    await jsm.streams.update(stream, config);
  } catch {
    await jsm.streams.add(config);
  }
  const js = nc.jetstream({ timeout });
  let up = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === "disconnect" || s.type === "reconnecting" || s.type === "staleConnection")
        up = false;
      else if (s.type === "reconnect") up = true;
    }
  })();
  const stops = /* @__PURE__ */ new Set();
  return {
    async publish(subject, data, { msgId, headers }) {
      await js.publish(out(subject), data, {
        msgID: msgId,
        headers: toNats({ ...currentTraceHeaders(), ...headers })
      });
    },
    async subscribe(subject, { durable }, handler) {
      await jsm.consumers.add(stream, {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subject: out(subject),
        ack_wait: nanos(3e4)
      });
      const consumer = await js.consumers.get(stream, durable);
      const messages = await consumer.consume({ max_messages: 64 });
      const done = (async () => {
        for await (const m of messages) {
          const msg = {
            id: m.headers?.get("Nats-Msg-Id") ?? String(m.seq),
            subject: back(m.subject),
            data: m.data,
            headers: fromNats(m.headers)
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
        if (!up) {
          void Promise.resolve(closing).catch(() => {
          });
          return;
        }
        await closing;
        await done.catch(() => {
        });
      };
      stops.add(stop);
      return { stop };
    },
    async broadcast(subject, data, headers = {}) {
      nc.publish(out(subject), data, { headers: toNats(headers) });
    },
    listen(subject, handler) {
      const sub = nc.subscribe(out(subject), {
        callback: (err, m) => {
          if (!err)
            handler({
              id: "",
              subject: back(m.subject),
              data: m.data,
              headers: fromNats(m.headers)
            });
        }
      });
      return { stop: async () => sub.unsubscribe() };
    },
    connected: () => up && !nc.isClosed(),
    async ping() {
      if (!up || nc.isClosed()) throw new Error("NATS is disconnected");
      await withDeadline(nc.flush(), timeout, "NATS flush");
    },
    async close() {
      if (!up) {
        await nc.close();
        return;
      }
      for (const stop of [...stops]) await stop();
      await nc.drain().catch(() => nc.close());
    }
  };
}
function toNats(h) {
  const out = natsHeaders();
  for (const [k, v] of Object.entries(h)) out.set(k, v);
  return out;
}
function fromNats(h) {
  const out = {};
  if (!h) return out;
  for (const k of h.keys()) out[k.toLowerCase() === "nats-msg-id" ? "Nats-Msg-Id" : k] = h.get(k);
  return out;
}
export {
  createNatsBus
};
//# sourceMappingURL=nats-bus-BO7XQ5PT.js.map
