import { Code, svcError } from "@svc/lib/errors";
import type { Kysely } from "kysely";
import * as repo from "../store/promotion.repository.js";
import type { PromotionDatabase } from "../store/promotion.table.js";

/**
 * Asks the bots service (the owner of the TrialLedger, over Connect) for trials' daily returns:
 * those it holds; throws when it cannot be asked.
 */
export type TrialReturnsLookup = (
  trialIds: string[],
) => Promise<Array<{ trialId: string; dailyReturns: number[] }>>;

/** Most trials asked for in one call (GetTrialReturns' own bound). */
const PER_CALL = 1_000;

/** A trial of the ledger with its returns, as the gates judge it. */
export type JudgedTrial = Omit<repo.LedgerTrial, "dailyReturns"> & { dailyReturns: number[] };

/**
 * The bot's trials with their daily returns. A trial projected without them (TrialRecorded names
 * the trial only) has them read from the bots service once, then kept here, so the next request
 * for the bot reads none. When they cannot be read, nothing is judged and nothing recorded: 503,
 * send the request again.
 */
export async function ledgerWithReturns(
  db: Kysely<PromotionDatabase>,
  botId: string,
  slug: string,
  lookup: TrialReturnsLookup | undefined,
): Promise<JudgedTrial[]> {
  const trials = await repo.trialsOfBot(db, botId);
  const missing = trials.filter((t) => t.dailyReturns === null).map((t) => t.trialId);
  if (missing.length === 0) return trials as JudgedTrial[];
  const unavailable = (why: string, cause?: unknown) =>
    svcError(
      Code.Unavailable,
      "trial_returns_unavailable",
      `the daily returns of ${missing.length} trial${missing.length === 1 ? "" : "s"} of bot ${slug} are not yet known to the promotion service and ${why}; nothing was recorded, send the request again in a moment`,
      { bot_ref: slug, trials: missing.length },
      { cause },
    );
  if (!lookup) throw unavailable("no bots service is wired to ask");
  const read: Awaited<ReturnType<TrialReturnsLookup>> = [];
  try {
    for (let at = 0; at < missing.length; at += PER_CALL)
      read.push(...(await lookup(missing.slice(at, at + PER_CALL))));
  } catch (err) {
    throw unavailable("the bots service could not be asked", err);
  }
  await repo.keepTrialReturns(db, read);
  const byId = new Map(read.map((r) => [r.trialId, r.dailyReturns]));
  const judged = trials.map((t) => ({ ...t, dailyReturns: t.dailyReturns ?? byId.get(t.trialId) }));
  const still = judged.filter((t) => t.dailyReturns === undefined).length;
  // The ledger's owner no longer has a trial the projection holds (its bot was deleted meanwhile).
  if (still > 0) throw unavailable(`the bots service has ${still} of them no more`);
  return judged as JudgedTrial[];
}
