import type { Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The requests list pages newest first by (created_at, request_id); these indexes, read
  // backwards, make the last page cost what the first does, with or without a status filter.
  await db.schema
    .createIndex("promotion_requests_created_idx")
    .on("promotion_requests")
    .columns(["created_at", "request_id"])
    .execute();
  await db.schema
    .createIndex("promotion_requests_status_created_idx")
    .on("promotion_requests")
    .columns(["status", "created_at", "request_id"])
    .execute();
  // The (status, created_at, request_id) index answers everything the old one did.
  await db.schema.dropIndex("promotion_requests_status_idx").execute();
}
