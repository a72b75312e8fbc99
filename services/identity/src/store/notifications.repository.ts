import type { JsonObject } from "@bufbuild/protobuf";
import { sql, type Kysely, type Selectable, type Transaction } from "kysely";
import type { IdentityDatabase } from "./identity.table.js";

type Db = Kysely<IdentityDatabase> | Transaction<IdentityDatabase>;

export type SubscriptionRow = Selectable<IdentityDatabase["webhook_subscriptions"]>;
export type DeliveryRow = Selectable<IdentityDatabase["webhook_deliveries"]> & {
  event_id: string;
  event_type: string;
};
export type AttemptRow = Selectable<IdentityDatabase["webhook_attempts"]>;
export interface EventRow {
  seq: string;
  id: string;
  type: string;
  occurred_at: Date;
  data: JsonObject;
}

/**
 * Records an event once (its id is unique) and, in the same transaction, one pending delivery
 * for every subscription to its type. A redelivered bus message records nothing.
 */
export async function recordEvent(
  trx: Transaction<IdentityDatabase>,
  ev: { id: string; type: string; occurredAt: Date; data: JsonObject },
): Promise<string | undefined> {
  // A seq is taken at insert, not at commit: a reader that saw 42 committed while 41 was not yet
  // would step past 41 for good. One recorder at a time (across processes) makes seq order
  // commit order, so `seq > last seen` misses nothing. Events are few; the wait is short.
  await sql`select pg_advisory_xact_lock(hashtext('identity.notification_events'))`.execute(trx);
  const inserted = await trx
    .insertInto("notification_events")
    .values({
      id: ev.id,
      type: ev.type,
      occurred_at: ev.occurredAt,
      data: JSON.stringify(ev.data),
    })
    .onConflict((oc) => oc.column("id").doNothing())
    .returning("seq")
    .executeTakeFirst();
  if (!inserted) return undefined;
  await trx
    .insertInto("webhook_deliveries")
    .columns(["id", "subscription_id", "event_seq", "status", "next_attempt_at"])
    .expression((eb) =>
      eb
        .selectFrom("webhook_subscriptions")
        .select([
          sql<string>`gen_random_uuid()`.as("id"),
          "id as subscription_id",
          sql<string>`${inserted.seq}::bigint`.as("event_seq"),
          sql<"pending">`'pending'`.as("status"),
          sql<Date>`now()`.as("next_attempt_at"),
        ])
        .where(sql<boolean>`${sql.ref("event_types")} ? ${ev.type}`),
    )
    .onConflict((oc) => oc.constraint("webhook_deliveries_once").doNothing())
    .execute();
  return inserted.seq;
}

export function insertSubscription(
  db: Db,
  row: Omit<SubscriptionRow, "created_at" | "event_types"> & { event_types: string[] },
): Promise<SubscriptionRow> {
  return db
    .insertInto("webhook_subscriptions")
    .values({ ...row, event_types: JSON.stringify(row.event_types) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function subscriptionsOf(db: Db, orgId: string): Promise<SubscriptionRow[]> {
  return db
    .selectFrom("webhook_subscriptions")
    .selectAll()
    .where("org_id", "=", orgId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
}

export function subscriptionOf(
  db: Db,
  orgId: string,
  id: string,
): Promise<SubscriptionRow | undefined> {
  return db
    .selectFrom("webhook_subscriptions")
    .selectAll()
    .where("org_id", "=", orgId)
    .where("id", "=", id)
    .executeTakeFirst();
}

export async function deleteSubscription(db: Db, orgId: string, id: string): Promise<boolean> {
  const r = await db
    .deleteFrom("webhook_subscriptions")
    .where("org_id", "=", orgId)
    .where("id", "=", id)
    .executeTakeFirst();
  return r.numDeletedRows > 0n;
}

const deliveries = (db: Db) =>
  db
    .selectFrom("webhook_deliveries as d")
    .innerJoin("notification_events as e", "e.seq", "d.event_seq")
    .innerJoin("webhook_subscriptions as s", "s.id", "d.subscription_id")
    .selectAll("d")
    .select(["e.id as event_id", "e.type as event_type"]);

export function deliveriesOf(
  db: Db,
  subscriptionId: string,
  limit: number,
): Promise<DeliveryRow[]> {
  return deliveries(db)
    .where("d.subscription_id", "=", subscriptionId)
    .orderBy("d.created_at", "desc")
    .orderBy("d.event_seq", "desc")
    .limit(limit)
    .execute();
}

export function deadLettersOf(db: Db, orgId: string, limit: number): Promise<DeliveryRow[]> {
  return deliveries(db)
    .where("s.org_id", "=", orgId)
    .where("d.status", "=", "dead")
    .orderBy("d.created_at", "desc")
    .orderBy("d.event_seq", "desc")
    .limit(limit)
    .execute();
}

export function deliveryOf(db: Db, orgId: string, id: string): Promise<DeliveryRow | undefined> {
  return deliveries(db).where("s.org_id", "=", orgId).where("d.id", "=", id).executeTakeFirst();
}

export async function attemptsOf(db: Db, deliveryIds: string[]): Promise<AttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return db
    .selectFrom("webhook_attempts")
    .selectAll()
    .where("delivery_id", "in", deliveryIds)
    .orderBy("id")
    .execute();
}

/**
 * A dead letter back in the queue, due now, with a fresh count of attempts (its attempt log
 * stays). Only a dead one: of two replays at once, the second finds it pending and is refused.
 */
export async function requeueDead(db: Db, id: string): Promise<boolean> {
  const r = await db
    .updateTable("webhook_deliveries")
    .set({ status: "pending", attempts: 0, next_attempt_at: sql`now()`, last_error: "" })
    .where("id", "=", id)
    .where("status", "=", "dead")
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** A delivery claimed for one attempt, with what the attempt needs. */
export interface DueDelivery {
  id: string;
  attempts: number;
  url: string;
  subscription_id: string;
  kek_id: string;
  wrapped_key: Buffer;
  ciphertext: Buffer;
  event_id: string;
  event_type: string;
  occurred_at: Date;
  data: JsonObject;
}

/**
 * Claims up to `limit` due deliveries: each is pushed `leaseMs` into the future under its row
 * lock, so another process (or this one's next pass) does not send it while this attempt runs;
 * an attempt that dies with its process is retried once the lease has passed.
 */
export function claimDue(
  db: Kysely<IdentityDatabase>,
  limit: number,
  leaseMs: number,
): Promise<DueDelivery[]> {
  return db.transaction().execute(async (trx) => {
    const due = await trx
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("status", "=", "pending")
      .where("next_attempt_at", "<=", sql<Date>`now()`)
      .orderBy("next_attempt_at")
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
    if (due.length === 0) return [];
    const ids = due.map((d) => d.id);
    await trx
      .updateTable("webhook_deliveries")
      .set({ next_attempt_at: sql`now() + ${`${leaseMs} milliseconds`}::interval` })
      .where("id", "in", ids)
      .execute();
    return trx
      .selectFrom("webhook_deliveries as d")
      .innerJoin("webhook_subscriptions as s", "s.id", "d.subscription_id")
      .innerJoin("notification_events as e", "e.seq", "d.event_seq")
      .select([
        "d.id",
        "d.attempts",
        "d.subscription_id",
        "s.url",
        "s.kek_id",
        "s.wrapped_key",
        "s.ciphertext",
        "e.id as event_id",
        "e.type as event_type",
        "e.occurred_at",
        "e.data",
      ])
      .where("d.id", "in", ids)
      .execute();
  });
}

/** One attempt's outcome and the delivery's next state, together. */
export function recordAttempt(
  db: Kysely<IdentityDatabase>,
  a: {
    deliveryId: string;
    attempt: number;
    statusCode: number;
    error: string;
    durationMs: number;
    next: { status: "delivered" | "dead" } | { status: "pending"; inMs: number };
  },
): Promise<void> {
  return db.transaction().execute(async (trx) => {
    await trx
      .insertInto("webhook_attempts")
      .values({
        delivery_id: a.deliveryId,
        attempt: a.attempt,
        status_code: a.statusCode,
        error: a.error,
        duration_ms: a.durationMs,
      })
      .execute();
    await trx
      .updateTable("webhook_deliveries")
      .set({
        status: a.next.status,
        attempts: a.attempt,
        last_error: a.error,
        next_attempt_at:
          a.next.status === "pending"
            ? sql`now() + ${`${a.next.inMs} milliseconds`}::interval`
            : sql`now()`,
      })
      .where("id", "=", a.deliveryId)
      .execute();
  });
}

export function eventsAfter(db: Db, seq: string, limit: number): Promise<EventRow[]> {
  return db
    .selectFrom("notification_events")
    .select(["seq", "id", "type", "occurred_at", "data"])
    .where("seq", ">", seq)
    .orderBy("seq")
    .limit(limit)
    .execute() as Promise<EventRow[]>;
}

export async function lastEventSeq(db: Db): Promise<string> {
  const r = await db
    .selectFrom("notification_events")
    .select(sql<string>`coalesce(max(seq), 0)::text`.as("seq"))
    .executeTakeFirstOrThrow();
  return r.seq;
}
