import type { KeyObject } from "node:crypto";
import type { Kysely } from "kysely";
import { Code, svcError } from "@svc/lib/errors";
import { StatementError, verifyStatement } from "@svc/lib/signed-statement";

/**
 * Checks an ApprovedPromotion token before paper start or deploy: signed by the promotion
 * service, not expired, for this bot and this version hash, and for a request the live plane
 * activated and has not seen revoked. The bots service verifies; it does not trust.
 */
export async function assertApprovedPromotion(
  deps: { db: Kysely<any>; publicKey: KeyObject | undefined },
  token: string,
  bot: { id: string; specHash: string },
): Promise<{ requestId: string; version: number }> {
  const refuse = (why: string) => svcError(Code.PermissionDenied, "approved_promotion_required", `paper trading and deployment need a valid ApprovedPromotion token: ${why}`, { field: "approved_promotion" });
  if (!token) throw refuse("none was sent (approve a promotion request for this bot version first)");
  if (!deps.publicKey) throw refuse("this bots service has no SVC_PROMOTION_PUBLIC_KEY_PEM to verify it with");
  let claims;
  try {
    claims = await verifyStatement(deps.publicKey, token, { audience: "svc:bots" });
  } catch (err) {
    throw refuse(err instanceof StatementError ? err.message : "it does not verify");
  }
  if (claims.bot_id !== bot.id) throw refuse("it approves another bot");
  if (claims.version_hash !== bot.specHash) throw refuse("it approves another version of this bot");
  const live = await deps.db
    .selectFrom("live_artifacts")
    .select(["live_eligible"])
    .where("request_id", "=", String(claims.request_id))
    .executeTakeFirst();
  if (!live) throw refuse("its promotion has not been activated by the live plane yet; retry in a moment");
  if (!live.live_eligible) throw refuse("its promotion was revoked");
  return { requestId: String(claims.request_id), version: Number(claims.version) };
}
