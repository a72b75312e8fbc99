import type { Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The ApprovedPromotion token, signed once when the request is approved; reads return it.
  // Requests approved before this column existed have none (their tokens were short-lived).
  await db.schema
    .alterTable("promotion_requests")
    .addColumn("approved_promotion_token", "text")
    .execute();
}
