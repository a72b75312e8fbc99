import type { Kysely } from "kysely";
import {
  checkpointRefusal,
  signCheckpoint,
  type CheckpointLog,
  type SignedCheckpoint,
} from "@svc/lib/audit";
import { withDeadline } from "@svc/lib/deadline";
import type { Logger } from "@svc/lib/telemetry";
import { chainHead, hashesAt } from "../store/audit-trail.repository.js";
import type { IdentityDatabase } from "../store/identity.table.js";
import type { AppendedRow } from "./append-watch.js";
import type { CheckpointKeys } from "./checkpoint-keys.js";

/** The anchoring of the audit trail outside its database. */
export interface Checkpointer {
  /** Reads where the chain was last anchored and starts the heartbeat. */
  start(): Promise<void>;
  /** A row this process appended: checkpointed as soon as it is committed and chains on. */
  noteAppended(row: AppendedRow): void;
  /** Checkpoints what this process appended and has not checkpointed yet. */
  flush(): Promise<void>;
  /** Signs and publishes a checkpoint of the newest row this service vouches for, now. */
  checkpointNow(): Promise<SignedCheckpoint>;
  stop(): Promise<void>;
}

/** How soon after an append its checkpoint is attempted: long enough for the commit to land. */
const AFTER_APPEND_MS = 20;

/**
 * Signs checkpoints (seq, head hash, time, key id) with the checkpoint key and appends them to a
 * log the database cannot rewrite. It vouches only for rows it saw this process append (through
 * watchAuditAppends), once they are committed and chain onto a row already vouched for (by this
 * process or, read back from the log, by another identity process): a row that appears in the
 * table any other way is never vouched for, so `verify` names it as unanchored. A checkpoint per
 * appended row, a heartbeat every `intervalMs` (re-signing the newest vouched head), and one on
 * demand.
 */
export function createCheckpointer(deps: {
  db: Kysely<IdentityDatabase>;
  log: CheckpointLog;
  keys: CheckpointKeys;
  intervalMs: number;
  timeoutMs: number;
  logger: Logger;
  now?: () => number;
}): Checkpointer {
  const now = deps.now ?? Date.now;
  const pending = new Map<number, AppendedRow & { at: number }>();
  let anchored: { seq: number; hash: string } | undefined;
  let unpublished = false;
  let queue: Promise<unknown> = Promise.resolve();
  let heartbeat: NodeJS.Timeout | undefined;
  let soon: NodeJS.Timeout | undefined;
  const warnedAbout = new Set<number>();
  const deadline = <T>(p: Promise<T>, what: string) => withDeadline(p, deps.timeoutMs, what);
  // One flush or publish at a time, in order, so checkpoints never go backwards.
  const serially = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work, work);
    queue = run.catch(() => {});
    return run;
  };

  const publish = async (head: { seq: number; hash: string }) => {
    const c = await signCheckpoint(
      { seq: head.seq, head_hash: head.hash, time: new Date(now()).toISOString() },
      deps.keys.active,
    );
    try {
      await deadline(deps.log.append(c), "audit checkpoint log");
      unpublished = false;
    } catch (err) {
      unpublished = true;
      throw err;
    }
    deps.logger.info(
      { audit_checkpoint: c.payload, signature: c.signature },
      "audit trail checkpoint signed",
    );
    return c;
  };

  /** The newest trusted checkpoint in the log, which another identity process may have written. */
  const newestInLog = async () => {
    const [c] = await deadline(deps.log.latest(1), "audit checkpoint log");
    if (!c || (await checkpointRefusal(c, deps.keys.trusted))) return undefined;
    return { seq: c.payload.seq, hash: c.payload.head_hash };
  };

  /** Moves the anchor over the rows this process appended; returns each row it now vouches for. */
  const advance = async (): Promise<Array<{ seq: number; hash: string }>> => {
    const fromLog = await newestInLog();
    if (fromLog && (!anchored || fromLog.seq > anchored.seq)) anchored = fromLog;
    if (!anchored || pending.size === 0) return [];
    const rows = [...pending.values()].sort((a, b) => a.seq - b.seq);
    const stored = await deadline(
      hashesAt(
        deps.db,
        rows.map((r) => r.seq),
      ),
      "database",
    );
    const advanced: Array<{ seq: number; hash: string }> = [];
    for (const r of rows) {
      const hash = stored.get(r.seq);
      if (r.seq <= anchored.seq || (hash !== undefined && hash !== r.hash)) {
        // Vouched for already, or its transaction rolled back and another row took its place.
        pending.delete(r.seq);
        continue;
      }
      if (hash === undefined) {
        if (now() - r.at > deps.intervalMs) pending.delete(r.seq);
        break;
      }
      if (r.seq !== anchored.seq + 1 || r.prevHash !== anchored.hash) {
        if (now() - r.at > deps.intervalMs && !warnedAbout.has(r.seq)) {
          warnedAbout.add(r.seq);
          deps.logger.error(
            { seq: r.seq, anchored_seq: anchored.seq },
            `audit row ${r.seq} chains onto rows no checkpoint vouches for (after seq ${anchored.seq}): it stays unanchored; run svc audit verify (docs/audit.md)`,
          );
        }
        break;
      }
      anchored = { seq: r.seq, hash: r.hash };
      pending.delete(r.seq);
      advanced.push(anchored);
    }
    return advanced;
  };

  // One checkpoint per row, so a verify names the exact row a recomputed chain was rewritten from.
  const publishAdvance = async (): Promise<SignedCheckpoint | undefined> => {
    let last: SignedCheckpoint | undefined;
    for (const head of await advance()) last = await publish(head);
    return last;
  };
  const flush = () =>
    serially(async () => {
      if (!(await publishAdvance()) && unpublished) await publish(anchored!);
    });

  const logFailure = (err: unknown) =>
    deps.logger.error({ err }, "audit trail checkpoint failed; the next one retries");

  return {
    async start() {
      const fromLog = await newestInLog();
      if (fromLog) anchored = fromLog;
      else {
        // Nothing vouched for yet: the chain is anchored as this process finds it.
        anchored = await deadline(chainHead(deps.db), "database");
        await serially(() => publish(anchored!));
        if (anchored.seq > 0)
          deps.logger.warn(
            { seq: anchored.seq, store: deps.log.kind },
            `no trusted audit checkpoint in the ${deps.log.kind} checkpoint log: the chain is anchored as found, at seq ${anchored.seq}; rows up to it are only as trustworthy as the database was until now`,
          );
      }
      heartbeat = setInterval(() => {
        void serially(async () => {
          await publishAdvance();
          await publish(anchored!);
        }).catch(logFailure);
      }, deps.intervalMs);
      heartbeat.unref();
    },
    noteAppended(row) {
      pending.set(row.seq, { ...row, at: now() });
      if (soon) return;
      soon = setTimeout(() => {
        soon = undefined;
        void flush().catch(logFailure);
      }, AFTER_APPEND_MS);
      soon.unref();
    },
    flush,
    checkpointNow() {
      return serially(async () => (await publishAdvance()) ?? publish(anchored!));
    },
    async stop() {
      clearInterval(heartbeat);
      clearTimeout(soon);
      await queue;
    },
  };
}
