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
  return id;
}

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
  pollMs?: number;
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

  const loop = async () => {
    while (!stopped) {
      try {
        await flush();
      } catch (err) {
        opts.log?.({ err, schema: opts.schema }, "outbox relay could not publish; will retry");
      }
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 200));
    }
  };
  const looping = loop();

  return {
    flush,
    async stop() {
      stopped = true;
      await looping;
    },
  };
}
