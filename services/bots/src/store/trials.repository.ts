import { sql, type Kysely, type Transaction } from "kysely";
import { keysetAfter, timestampKey } from "@svc/lib/paging";
import type { BotsDatabase, NewTrialRow } from "./bots.table.js";

/** Records a trial in the TrialLedger once; false when it was recorded already (same trial id). */
export async function recordTrial(
  trx: Transaction<BotsDatabase>,
  row: NewTrialRow,
): Promise<boolean> {
  const inserted = await trx
    .insertInto("trial_ledger")
    .values(row)
    .onConflict((oc) => oc.column("trial_id").doNothing())
    .returning("trial_id")
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The sort keys of a bot's trials: recorded_at, then trial_id to break a tie. */
export const TRIAL_KEYS = ["timestamp", "uuid"] as const;

/**
 * One page of the bot's TrialLedger, oldest first, by (recorded_at, trial_id); the
 * (bot_id, recorded_at, trial_id) index serves it.
 */
export function listTrials(
  db: Kysely<BotsDatabase>,
  botId: string,
  page: { limit: number; after?: readonly string[] },
) {
  let q = db
    .selectFrom("trial_ledger as t")
    // A trial's id is its backtest's: the backtest says which sweep it was part of, if any.
    .leftJoin("bot_deployments as d", "d.id", "t.trial_id")
    .selectAll("t")
    .select("d.sweep_id")
    .select((eb) => timestampKey(eb.ref("t.recorded_at")).as("recorded_key"))
    .where("t.bot_id", "=", botId);
  if (page.after)
    q = q.where((eb) =>
      keysetAfter([eb.ref("t.recorded_at"), eb.ref("t.trial_id")], page.after!, TRIAL_KEYS, "asc"),
    );
  return q.orderBy("t.recorded_at").orderBy("t.trial_id").limit(page.limit).execute();
}

/** N: how many trials the ledger holds for the bot (every page reports the whole count). */
export async function countTrials(db: Kysely<BotsDatabase>, botId: string): Promise<number> {
  const r = await db
    .selectFrom("trial_ledger")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("bot_id", "=", botId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The daily returns of the trials asked for that the ledger holds: their results' (only the
 * values, read out by the database), or the ledger's own for a trial recorded before results
 * were kept. An id that is no trial's (or no uuid at all) is left out.
 */
export async function trialReturns(
  db: Kysely<BotsDatabase>,
  trialIds: readonly string[],
): Promise<Array<{ trial_id: string; daily_returns: number[] }>> {
  const ids = trialIds.filter((id) => UUID.test(id));
  if (ids.length === 0) return [];
  return db
    .selectFrom("trial_ledger as t")
    .leftJoin("backtest_results as r", "r.deployment_id", "t.trial_id")
    .select("t.trial_id")
    .select(
      sql<
        number[]
      >`coalesce(t.daily_returns, jsonb_path_query_array(r.daily_returns::jsonb, '$[*].value'), '[]'::jsonb)`.as(
        "daily_returns",
      ),
    )
    .where("t.trial_id", "in", ids)
    .execute();
}
