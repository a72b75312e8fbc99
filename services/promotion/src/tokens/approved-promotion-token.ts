import type { KeyObject } from "node:crypto";
import { signStatement } from "@svc/lib/signed-statement";
import type { RequestRow } from "../store/promotion.table.js";

/**
 * Lifetime of an ApprovedPromotion token. It is signed once and stored, so it must outlive the
 * time a team takes from approval to start: 30 days. Revocation does not wait for it to lapse:
 * the bots service marks the artifact ineligible on PromotionRevoked and refuses the token then.
 */
export const APPROVED_PROMOTION_TTL_SECONDS = 30 * 24 * 3600;

/**
 * The ApprovedPromotion token: a signed statement that this request approved this
 * bot version. Signed once, when the request is approved, and stored; paper start and deploy
 * present it; the bots service verifies it offline.
 *
 * @example const token = await signApprovedPromotion(key, row);
 */
export function signApprovedPromotion(
  key: KeyObject,
  row: Pick<
    RequestRow,
    "request_id" | "kind" | "bot_id" | "version" | "version_hash" | "strategy_digest"
  > & { model_digests?: string | null },
): Promise<string> {
  return signStatement(
    key,
    {
      request_id: row.request_id,
      kind: row.kind,
      bot_id: row.bot_id ?? "",
      version: row.version ?? 0,
      version_hash: row.version_hash ?? "",
      // The code the version runs, named on its own (the hash pins it too) so that the bots
      // service and an auditor read it without the spec: empty for a built-in family.
      strategy_digest: row.strategy_digest ?? "",
      // The ONNX models it runs, name to digest (empty: none): the bots service loads no model
      // whose bytes hash otherwise.
      model_digests: row.model_digests
        ? (JSON.parse(row.model_digests) as Record<string, string>)
        : {},
    },
    { audience: "svc:bots", ttlSeconds: APPROVED_PROMOTION_TTL_SECONDS },
  );
}
