import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
/**
 * Outbound events (docs/notifications.md). `notification_events` is the log of platform events
 * people may hear of (its seq is the SSE id); a webhook subscription's secret is kept only as a
 * vault envelope; a delivery is one event on its way to one subscription, unique per pair so a
 * redelivered bus message fans out once; every attempt is kept for the person who debugs it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("notification_events")
    .addColumn("seq", "bigserial", (c) => c.primaryKey())
    .addColumn("id", "text", (c) => c.notNull().unique())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("occurred_at", "timestamptz", (c) => c.notNull())
    .addColumn("data", "jsonb", (c) => c.notNull())
    .addColumn("recorded_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable("webhook_subscriptions")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("org_id", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("event_types", "jsonb", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("kek_id", "text", (c) => c.notNull())
    .addColumn("wrapped_key", "bytea", (c) => c.notNull())
    .addColumn("ciphertext", "bytea", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex("webhook_subscriptions_org_idx")
    .on("webhook_subscriptions")
    .column("org_id")
    .execute();
  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("subscription_id", "uuid", (c) =>
      c.notNull().references("webhook_subscriptions.id").onDelete("cascade"),
    )
    .addColumn("event_seq", "bigint", (c) => c.notNull().references("notification_events.seq"))
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_at", "timestamptz", (c) => c.notNull())
    .addColumn("last_error", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint("webhook_deliveries_once", ["subscription_id", "event_seq"])
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_due_idx")
    .on("webhook_deliveries")
    .column("next_attempt_at")
    .where(sql.ref("status"), "=", "pending")
    .execute();
  await db.schema
    .createTable("webhook_attempts")
    .addColumn("id", "bigserial", (c) => c.primaryKey())
    .addColumn("delivery_id", "uuid", (c) =>
      c.notNull().references("webhook_deliveries.id").onDelete("cascade"),
    )
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("status_code", "integer", (c) => c.notNull())
    .addColumn("error", "text", (c) => c.notNull())
    .addColumn("duration_ms", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("webhook_attempts_delivery_idx")
    .on("webhook_attempts")
    .column("delivery_id")
    .execute();
}
