import { sql, type Kysely, type Migration, type Transaction } from "kysely";
import { isUniqueViolation } from "../db/pg-errors.js";

/** The table that makes consumers idempotent. Frozen. */
export const processedEventsMigration: Migration = {
  async up(db: Kysely<any>) {
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
export async function processOnce(
  db: Kysely<any>,
  schema: string,
  consumer: string,
  eventId: string,
  fn: (trx: Transaction<any>) => Promise<void>,
): Promise<boolean> {
  try {
    return await db.transaction().execute(async (trx) => {
      const inserted = await trx
        .withSchema(schema)
        .insertInto("processed_events")
        .values({ consumer, event_id: eventId })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return false;
      await fn(trx);
      return true;
    });
  } catch (err) {
    if (isUniqueViolation(err)) return false;
    throw err;
  }
}
