import { sql, type Generated, type Kysely, type Migration, type Transaction } from "kysely";
import { isUniqueViolation } from "../db/pg-errors.js";
import { inBackground } from "../db/query-priority.js";

interface ProcessedEventsTables {
  processed_events: { consumer: string; event_id: string; processed_at: Generated<Date> };
}

/** The table that makes consumers idempotent. Frozen. */
export const processedEventsMigration: Migration = {
  async up(db) {
    await db.schema
      .createTable("processed_events")
      .addColumn("consumer", "text", (c) => c.notNull())
      .addColumn("event_id", "text", (c) => c.notNull())
      .addColumn("processed_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
      .addPrimaryKeyConstraint("processed_events_pk", ["consumer", "event_id"])
      .execute();
  },
};

/**
 * Runs `fn` once per (consumer, event id), recording the event in the same transaction as its
 * effects: a redelivered event changes nothing. Returns false for a duplicate.
 */
export async function processOnce<DB>(
  db: Kysely<DB>,
  schema: string,
  consumer: string,
  eventId: string,
  fn: (trx: Transaction<DB>) => Promise<void>,
): Promise<boolean> {
  try {
    // A consumer's work waits for the embedded database's one connection after requests do.
    return await inBackground(() =>
      db.transaction().execute(async (trx) => {
        // The service's own database type does not name this module's table.
        const inserted = await (trx as unknown as Transaction<ProcessedEventsTables>)
          .withSchema(schema)
          .insertInto("processed_events")
          .values({ consumer, event_id: eventId })
          .onConflict((oc) => oc.doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
        await fn(trx);
        return true;
      }),
    );
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}
