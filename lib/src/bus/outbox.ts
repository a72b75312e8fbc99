import { randomUUID } from "node:crypto";
import {
  sql,
  type ColumnType,
  type Generated,
  type Kysely,
  type Migration,
  type Transaction,
} from "kysely";
import { describeEvent } from "./describe-event.js";
import type { EventBus } from "./event-bus.js";
import { currentTraceHeaders } from "./trace-headers.js";
import { inBackground } from "../db/query-priority.js";
import { outboxLag, outboxPublished } from "../telemetry/metrics.js";

/** The outbox as this module reads and writes it, in whichever service schema includes it. */
interface OutboxTables {
  outbox: {
    seq: Generated<string>;
    id: string;
    subject: string;
    type: string;
    payload: Buffer;
    headers: ColumnType<Record<string, string> | string, string, never>;
    created_at: Generated<Date>;
    published_at: Date | null;
  };
}

/** The outbox table every service with events includes in its own migrations. Frozen. */
export const outboxMigration: Migration = {
  async up(db) {
    await db.schema
      .createTable("outbox")
      .addColumn("seq", "bigserial", (c) => c.primaryKey())
      .addColumn("id", "uuid", (c) => c.notNull().unique())
      .addColumn("subject", "text", (c) => c.notNull())
      .addColumn("type", "text", (c) => c.notNull())
      .addColumn("payload", "bytea", (c) => c.notNull())
      .addColumn("headers", "jsonb", (c) => c.notNull())
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn("published_at", "timestamptz")
      .execute();
    await db.schema
      .createIndex("outbox_unpublished_idx")
      .on("outbox")
      .column("seq")
      .where(sql.ref("published_at"), "is", null)
      .execute();
  },
};

/**
 * Writes an event in the caller's transaction: it exists exactly when the state change does.
 * Returns the event id, which the relay publishes as the message id.
 */
export async function enqueueEvent<DB>(
  trx: Transaction<DB>,
  schema: string,
  ev: { subject: string; type: string; payload: Uint8Array; headers?: Record<string, string> },
): Promise<string> {
  const id = randomUUID();
  // The service's own database type does not name the outbox; the table is this module's.
  await (trx as unknown as Transaction<OutboxTables>)
    .withSchema(schema)
    .insertInto("outbox")
    .values({
      id,
      subject: ev.subject,
      type: ev.type,
      payload: Buffer.from(ev.payload),
      headers: JSON.stringify({
        ...currentTraceHeaders(),
        ...ev.headers,
        "svc-event-type": ev.type,
      }),
    })
    .execute();
  // Read committed: the relay sees the row only once the caller's transaction commits, so a
  // woken relay keeps polling at its busy pace for a while rather than once.
  wakeOutboxRelays(schema);
  return id;
}

/**
 * Wakes this thread's relays of `schema` from their idle pace: what a thread that wrote an event
 * on a connection of its own (a backtest's worker) asks the relay's thread to do once it committed.
 */
export function wakeOutboxRelays(schema: string): void {
  for (const wake of relaysBySchema.get(schema) ?? []) wake();
}

/** This process's relays by schema: enqueueEvent wakes them from their idle pace. */
const relaysBySchema = new Map<string, Set<() => void>>();

export interface OutboxRelay {
  /** Publishes what is pending now; resolves with how many were published. */
  flush(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Moves committed outbox rows to the bus in order. Rows are claimed with SKIP LOCKED so two relays
 * never publish the same row at once; a crash after publishing and before marking republishes
 * with the same message id, which the bus drops as a duplicate.
 */
export function startOutboxRelay<DB>(opts: {
  db: Kysely<DB>;
  schema: string;
  bus: EventBus;
  /** The pace while events are being written (since a wake or a pass that published). */
  pollMs?: number;
  /**
   * The pace once nothing was written for ten busy polls: rows this process was not told of
   * (written by another process of the service, or left by a relay that crashed) wait that long.
   */
  idlePollMs?: number;
  batch?: number;
  log?: (obj: object, msg: string) => void;
  /** Told of each domain event once it is on the bus, for the info log. */
  published?: (obj: object, msg: string) => void;
}): OutboxRelay {
  const db = (opts.db as unknown as Kysely<OutboxTables>).withSchema(opts.schema);
  const batch = opts.batch ?? 100;
  let stopped = false;
  let running: Promise<number> | null = null;

  // The first batch of a pass holds the oldest waiting row: its age (by the database's clock,
  // which wrote created_at) is the relay's lag.
  let lagSeconds: number | undefined;
  const publishBatch = async (): Promise<number> =>
    db.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom("outbox")
        .select(["seq", "id", "subject", "type", "payload", "headers"])
        .select(sql<number>`extract(epoch from now() - created_at)::float8`.as("age_s"))
        .where("published_at", "is", null)
        .orderBy("seq")
        .limit(batch)
        .forUpdate()
        .skipLocked()
        .execute();
      for (const row of rows) {
        const headers = typeof row.headers === "string" ? JSON.parse(row.headers) : row.headers;
        await opts.bus.publish(row.subject, new Uint8Array(row.payload), {
          msgId: row.id,
          headers,
        });
      }
      for (const row of rows)
        opts.published?.(describeEvent(row.type, new Uint8Array(row.payload)), "domain event");
      lagSeconds ??= rows.length > 0 ? Math.max(0, Number(rows[0]!.age_s)) : 0;
      if (rows.length > 0) {
        await trx
          .updateTable("outbox")
          .set({ published_at: sql`now()` })
          .where(
            "seq",
            "in",
            rows.map((r) => r.seq),
          )
          .execute();
      }
      return rows.length;
    });

  const flush = async (): Promise<number> => {
    if (running) await running.catch(() => 0);
    running = (async () => {
      let total = 0;
      lagSeconds = undefined;
      for (let n = await publishBatch(); n > 0; n = await publishBatch()) total += n;
      outboxLag.set({ service: opts.schema }, lagSeconds ?? 0);
      if (total > 0) outboxPublished.inc({ service: opts.schema }, total);
      return total;
    })();
    try {
      return await running;
    } finally {
      running = null;
    }
  };

  const pollMs = opts.pollMs ?? 200;
  const idlePollMs = Math.max(pollMs, opts.idlePollMs ?? 2_000);
  // An idle platform polled each outbox five times a second: a transaction each time, 4 % of a
  // core and a steady trickle of garbage on embedded PGlite, and as many queries on a shared
  // Postgres. It now polls at the busy pace only while this process writes events.
  let busyUntil = 0;
  let cutSleep: ((ms: number) => void) | undefined;
  const wake = () => {
    busyUntil = Date.now() + 10 * pollMs;
    cutSleep?.(pollMs);
  };
  const wakers = relaysBySchema.get(opts.schema) ?? new Set<() => void>();
  relaysBySchema.set(opts.schema, wakers.add(wake));

  /** Waits `ms`, or less when woken (`cutSleep`): at most `limit` from the wake on. */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      let due = Date.now() + ms;
      let timer = setTimeout(done, ms);
      function done() {
        cutSleep = undefined;
        resolve();
      }
      cutSleep = (limit: number) => {
        if (Date.now() + limit >= due) return;
        due = Date.now() + limit;
        clearTimeout(timer);
        timer = setTimeout(done, limit);
      };
    });

  const loop = async () => {
    while (!stopped) {
      try {
        if ((await flush()) > 0) busyUntil = Date.now() + 10 * pollMs;
      } catch (err) {
        opts.log?.({ err, schema: opts.schema }, "outbox relay could not publish; will retry");
        busyUntil = Date.now() + 10 * pollMs;
      }
      if (!stopped) await sleep(Date.now() < busyUntil ? pollMs : idlePollMs);
    }
  };
  // Nobody waits on the relay: a request for the embedded database's one connection goes first.
  const looping = inBackground(loop);

  return {
    flush,
    async stop() {
      stopped = true;
      wakers.delete(wake);
      if (wakers.size === 0) relaysBySchema.delete(opts.schema);
      cutSleep?.(0);
      await looping;
    },
  };
}
