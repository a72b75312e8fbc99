import type { KeyObject } from "node:crypto";
import type { Kysely } from "kysely";
import { Code, svcError } from "@svc/lib/errors";
import { StatementError, verifyStatement } from "@svc/lib/signed-statement";
import { activateArtifact, liveEligible } from "../store/live-artifacts.repository.js";
import type { BotsDatabase } from "../store/bots.table.js";
import { modelBytes } from "../store/models.repository.js";
import { modelDigest } from "../models/run-models.js";

function describeModels(models: Record<string, unknown>): string {
  const entries = Object.entries(models);
  return entries.length
    ? entries.map(([n, d]) => `model "${n}" ${String(d)}`).join(", ")
    : "no model";
}

/**
 * Checks an ApprovedPromotion token before paper start or deploy: signed by the promotion
 * service, not expired, for this bot and this version hash, and for a request the live plane has
 * not seen revoked. A token that verifies is usable the moment approve returns: when the
 * approval event has not arrived yet, the token itself (signed by the promotion service)
 * activates the artifact. The bots service verifies; it does not trust.
 */
export async function assertApprovedPromotion(
  deps: { db: Kysely<BotsDatabase>; schema: string; publicKey: KeyObject | undefined },
  token: string,
  bot: {
    id: string;
    specHash: string;
    strategyDigest?: string;
    /** The ONNX models the version runs, name to digest (its spec.models with a digest). */
    models?: Record<string, string>;
  },
): Promise<{ requestId: string; version: number }> {
  const refuse = (why: string) =>
    svcError(
      Code.PermissionDenied,
      "approved_promotion_required",
      `paper trading and deployment need a valid ApprovedPromotion token: ${why}`,
      { field: "approved_promotion" },
    );
  if (!token)
    throw refuse("none was sent (approve a promotion request for this bot version first)");
  if (!deps.publicKey)
    throw refuse("this bots service has no SVC_PROMOTION_PUBLIC_KEY_PEM to verify it with");
  let claims;
  try {
    claims = await verifyStatement(deps.publicKey, token, { audience: "svc:bots" });
  } catch (err) {
    throw refuse(err instanceof StatementError ? err.message : "it does not verify");
  }
  if (claims.bot_id !== bot.id) throw refuse("it approves another bot");
  if (claims.version_hash !== bot.specHash) throw refuse("it approves another version of this bot");
  // The hash pins the code already; the token names it too, and a token that names other code
  // (or none, for code) is refused on that ground, whatever the hash says.
  if ((claims.strategy_digest ?? "") !== (bot.strategyDigest ?? ""))
    throw refuse(
      `it approves ${claims.strategy_digest ? `strategy code ${String(claims.strategy_digest)}` : "no strategy code"}, and this version runs ${bot.strategyDigest ? `strategy code ${bot.strategyDigest}` : "a built-in family"}`,
    );
  const models = bot.models ?? {};
  const claimed = (claims.model_digests ?? {}) as Record<string, unknown>;
  const names = Object.keys(models);
  if (names.length !== Object.keys(claimed).length || names.some((n) => claimed[n] !== models[n]))
    throw refuse(
      `it approves ${describeModels(claimed)}, and this version runs ${describeModels(models)}`,
    );
  // The digests pin the bytes: a model file changed in the store since it was uploaded (or
  // since the approval) hashes otherwise, and nothing starts on it.
  const stored = await modelBytes(deps.db, Object.values(models));
  for (const name of names) {
    const bytes = stored.get(models[name]!);
    const actual = bytes ? modelDigest(bytes) : "nothing (it is not stored)";
    if (actual !== models[name])
      throw refuse(
        `it approves model "${name}" ${models[name]}, and the model stored under that digest now hashes to ${actual}`,
      );
  }
  const requestId = String(claims.request_id);
  const version = Number(claims.version);
  const eligible = await liveEligible(deps.db, requestId);
  if (eligible === false) throw refuse("its promotion was revoked");
  if (eligible === undefined)
    await deps.db.transaction().execute((trx) =>
      activateArtifact(trx, deps.schema, {
        requestId,
        botId: bot.id,
        version,
        versionHash: bot.specHash,
      }),
    );
  return { requestId, version };
}
