import type { Kysely, Transaction } from "kysely";
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

/** The bot's TrialLedger, oldest first. */
export function listTrials(db: Kysely<BotsDatabase>, botId: string) {
  return db
    .selectFrom("trial_ledger")
    .selectAll()
    .where("bot_id", "=", botId)
    .orderBy("recorded_at")
    .orderBy("trial_id")
    .execute();
}
