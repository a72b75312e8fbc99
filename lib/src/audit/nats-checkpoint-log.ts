import { connect, nanos, type NatsConnection } from "nats";
import { ensureStream } from "../bus/ensure-stream.js";
import { withDeadline } from "../deadline/index.js";
import type { SignedCheckpoint } from "./checkpoint.js";
import { checkpointStreamOf, type CheckpointLog } from "./checkpoint-log.js";

const DAY_MS = 86_400_000;
/** How many stored checkpoints are fetched at once when reading the newest ones. */
const READ_BATCH = 32;

/**
 * Signed checkpoints on a JetStream stream of their own: kept `retentionDays` (limits by age
 * only), with message deletion and purge denied, so neither the database nor a client of the
 * stream can take one back. Every call has the `timeoutMs` deadline.
 */
export async function openNatsCheckpointLog(opts: {
  url: string;
  namespace?: string;
  retentionDays: number;
  timeoutMs: number;
}): Promise<CheckpointLog> {
  const { stream, subject } = checkpointStreamOf(opts.namespace);
  const timeout = opts.timeoutMs;
  const nc: NatsConnection = await connect({
    servers: opts.url,
    name: "svc-audit-checkpoints",
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    timeout,
  });
  try {
    const jsm = await nc.jetstreamManager({ timeout });
    const config = {
      name: stream,
      subjects: [subject],
      max_age: nanos(opts.retentionDays * DAY_MS),
      deny_delete: true,
      deny_purge: true,
    };
    await ensureStream(jsm, config);
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
        const out: SignedCheckpoint[] = [];
        for (let seq = from; seq <= state.last_seq; seq += READ_BATCH) {
          const batch = [];
          for (let s = seq; s < seq + READ_BATCH && s <= state.last_seq; s++)
            batch.push(withDeadline(jsm.streams.getMessage(stream, { seq: s }), timeout, "NATS"));
          for (const m of await Promise.all(batch)) out.push(m.json<SignedCheckpoint>());
        }
        return out;
      },
      async close() {
        await nc.drain().catch(() => nc.close());
      },
    };
  } catch (err) {
    await nc.close();
    throw err;
  }
}
