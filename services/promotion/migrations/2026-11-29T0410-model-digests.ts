import type { Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A bot version's ONNX models (JSON of name to "sha256:..." digest, names sorted; null: none),
  // as the bots events announce them; a request records the ones it gated, and its
  // ApprovedPromotion token names them.
  await db.schema.alterTable("known_bot_versions").addColumn("model_digests", "text").execute();
  await db.schema.alterTable("promotion_requests").addColumn("model_digests", "text").execute();
}
