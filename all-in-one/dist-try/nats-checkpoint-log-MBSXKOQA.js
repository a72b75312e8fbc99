import { createRequire as __svcCreateRequire } from "node:module"; const require = __svcCreateRequire(import.meta.url);
import {
  checkpointStreamOf
} from "./chunk-6IOK32WY.js";
import {
  withDeadline
} from "./chunk-WHDG35AA.js";
import "./chunk-VRQZRDEA.js";

// lib/src/audit/nats-checkpoint-log.ts
import { connect, nanos } from "nats";
var DAY_MS = 864e5;
var READ_BATCH = 32;
async function openNatsCheckpointLog(opts) {
  const { stream, subject } = checkpointStreamOf(opts.namespace);
  const timeout = opts.timeoutMs;
  const nc = await connect({
    servers: opts.url,
    name: "svc-audit-checkpoints",
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    timeout
  });
  try {
    const jsm = await nc.jetstreamManager({ timeout });
    const config = {
      name: stream,
      subjects: [subject],
      max_age: nanos(opts.retentionDays * DAY_MS),
      deny_delete: true,
      deny_purge: true
    };
    try {
      await jsm.streams.info(stream);
      await jsm.streams.update(stream, config);
    } catch {
      await jsm.streams.add(config);
    }
    const js = nc.jetstream({ timeout });
    return {
      kind: "jetstream",
      async append(c) {
        await js.publish(subject, new TextEncoder().encode(JSON.stringify(c)));
      },
      async latest(n) {
        const { state } = await jsm.streams.info(stream);
        if (state.messages === 0) return [];
        const from = Math.max(state.first_seq, state.last_seq - n + 1);
        const out = [];
        for (let seq = from; seq <= state.last_seq; seq += READ_BATCH) {
          const batch = [];
          for (let s = seq; s < seq + READ_BATCH && s <= state.last_seq; s++)
            batch.push(withDeadline(jsm.streams.getMessage(stream, { seq: s }), timeout, "NATS"));
          for (const m of await Promise.all(batch)) out.push(m.json());
        }
        return out;
      },
      async close() {
        await nc.drain().catch(() => nc.close());
      }
    };
  } catch (err) {
    await nc.close();
    throw err;
  }
}
export {
  openNatsCheckpointLog
};
//# sourceMappingURL=nats-checkpoint-log-MBSXKOQA.js.map
