import type { Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // The identity service's internal user behind the submitter, when the token named one: four
  // eyes compares people, and two provider subjects of one person share it. Null for requests
  // submitted before this column, or by a token without the claim.
  await db.schema
    .alterTable("promotion_requests")
    .addColumn("submitter_internal_user_id", "text")
    .execute();
}
