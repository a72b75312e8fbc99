import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql, type Kysely } from "kysely";
import { eventually } from "../../../test/support/until.js";
import { migrateSchema, openDatabase, schemaDb, type Database } from "../db/index.js";
import {
  createNatsBus,
  enqueueEvent,
  outboxMigration,
  processedEventsMigration,
  processOnce,
  startOutboxRelay,
  type BusMessage,
  type EventBus,
} from "./index.js";
import { deleteTestStream } from "./testing-streams.js";

const natsUrl = process.env.SVC_TEST_NATS_URL ?? "nats://127.0.0.1:4222";
const dbUrl = process.env.SVC_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

// The transactional outbox against the real Postgres and NATS JetStream.
interface TestTables {
  outbox: {
    id: string;
    subject: string;
    payload: Buffer;
    headers: Record<string, string>;
    published_at: Date | null;
  };
  effects: { event_id: string };
}

describe("transactional outbox on Postgres and NATS", () => {
  const tag = randomBytes(4).toString("hex");
  const schema = `outbox_test_${tag}`;
  const subjects = `o${tag}`;
  let database: Database;
  let db: Kysely<TestTables>;
  let bus: EventBus;
  const received: BusMessage[] = [];
  const applied: string[] = [];

  beforeAll(async () => {
    database = await openDatabase({ url: dbUrl });
    db = schemaDb<TestTables>(database.db, schema);
    await migrateSchema(database.db, schema, {
      "1-outbox": outboxMigration,
      "2-processed": processedEventsMigration,
      "3-effects": {
        up: async (d) =>
          void (await d.schema
            .createTable("effects")
            .addColumn("event_id", "text", (c) => c.primaryKey())
            .execute()),
      },
    });
    bus = await createNatsBus({
      url: natsUrl,
      stream: `SVC_OUTBOX_${tag}`,
      subjects: [`${subjects}.>`],
    });
    await bus.subscribe(`${subjects}.>`, { durable: "consumer" }, async (m) => {
      received.push(m);
      await processOnce(db, schema, "consumer", m.id, async (trx) => {
        await trx.withSchema(schema).insertInto("effects").values({ event_id: m.id }).execute();
        applied.push(m.id);
      });
    });
  });
  afterAll(async () => {
    await bus.close();
    await deleteTestStream(natsUrl, `SVC_OUTBOX_${tag}`);
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(db);
    await database.close();
  });

  it("never publishes an event whose transaction rolled back", async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await enqueueEvent(trx, schema, {
          subject: `${subjects}.rolled`,
          type: "t",
          payload: new Uint8Array([1]),
        });
        throw new Error("state change failed");
      }),
    ).rejects.toThrow("state change failed");
    const relay = startOutboxRelay({ db, schema, bus, pollMs: 20 });
    expect(await relay.flush()).toBe(0);
    await relay.stop();
    expect(received.filter((m) => m.subject.endsWith("rolled"))).toHaveLength(0);
  });

  it("delivers a committed event once even when the relay dies between publishing and marking", async () => {
    const id = await db.transaction().execute((trx) =>
      enqueueEvent(trx, schema, {
        subject: `${subjects}.approved`,
        type: "svc.events.v1.PromotionApproved",
        payload: new Uint8Array([7]),
      }),
    );
    // The crash: the event reached the bus, the row was never marked published.
    const row = await db
      .withSchema(schema)
      .selectFrom("outbox")
      .selectAll()
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    await bus.publish(row.subject, new Uint8Array(row.payload), {
      msgId: row.id,
      headers: row.headers,
    });
    // After the restart a new relay finds the row unpublished and publishes it again.
    const relay = startOutboxRelay({ db, schema, bus, pollMs: 20 });
    await relay.flush();
    await relay.stop();
    // The consumer gets the stream in order: a second copy kept by the server would come before
    // a message published after the relay's.
    const after = randomUUID();
    await bus.publish(`${subjects}.after`, new Uint8Array([8]), { msgId: after });
    await eventually(
      "the consumer gets the message published after the relay's",
      () => applied,
      (a) => a.includes(after),
    );
    expect(received.filter((m) => m.id === id)).toHaveLength(1);
    expect(applied.filter((x) => x === id)).toHaveLength(1);
    const effects = await db
      .withSchema(schema)
      .selectFrom("effects")
      .selectAll()
      .where("event_id", "=", id)
      .execute();
    expect(effects).toHaveLength(1);
    const marked = await db
      .withSchema(schema)
      .selectFrom("outbox")
      .select("published_at")
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(marked.published_at).not.toBeNull();
  });

  /** Within 5 s: long past a busy poll (20 ms below), long before an idle one of a minute. */
  const onTheBus = (id: string) =>
    eventually(
      `event ${id} is on the bus`,
      () => received,
      (r) => r.some((m) => m.id === id),
      5_000,
    );

  it("an idle relay publishes an event this process writes at its busy pace, not its idle one", async () => {
    const relay = startOutboxRelay({ db, schema, bus, pollMs: 20, idlePollMs: 60_000 });
    try {
      // Its first pass found nothing (a second pass waits for it), so it waits a minute now.
      await relay.flush();
      const id = await db.transaction().execute((trx) =>
        enqueueEvent(trx, schema, {
          subject: `${subjects}.woken`,
          type: "t",
          payload: new Uint8Array([3]),
        }),
      );
      await onTheBus(id);
    } finally {
      await relay.stop();
    }
  });

  it("an idle relay still publishes rows it was not told of (another process wrote them)", async () => {
    const relay = startOutboxRelay({ db, schema, bus, pollMs: 20, idlePollMs: 300 });
    try {
      await relay.flush();
      // Written as another replica of the service would: no wake reaches this process's relay.
      const id = randomUUID();
      await sql`insert into ${sql.id(schema, "outbox")} (id, subject, type, payload, headers)
        values (${id}, ${`${subjects}.elsewhere`}, 't', ${Buffer.from([4])}, '{}')`.execute(db);
      await onTheBus(id);
    } finally {
      await relay.stop();
    }
  });

  it("a relay stops at once from its idle pace", async () => {
    const relay = startOutboxRelay({ db, schema, bus, pollMs: 20, idlePollMs: 600_000 });
    await relay.flush();
    const stopped = relay.stop().then(() => "stopped");
    const late = new Promise((r) => setTimeout(() => r("still polling"), 5_000));
    expect(await Promise.race([stopped, late])).toBe("stopped");
  });

  it("processOnce applies a redelivered event once", async () => {
    let runs = 0;
    const first = await processOnce(db, schema, "c2", "evt-1", async () => void runs++);
    const second = await processOnce(db, schema, "c2", "evt-1", async () => void runs++);
    expect([first, second, runs]).toEqual([true, false, 1]);
  });
});
