import type { Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A bot version's strategy code digest, as the bots events announce it (null: a built-in
  // family, or a version announced before code existed); a request records the one it gated, and
  // its ApprovedPromotion token names it.
  await db.schema.alterTable("known_bot_versions").addColumn("strategy_digest", "text").execute();
  await db.schema.alterTable("promotion_requests").addColumn("strategy_digest", "text").execute();
}
