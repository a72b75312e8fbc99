import { sql, type Kysely } from "kysely";

/** The columns this migration touches, as they were when it was written. */
interface Frozen {
  trial_ledger: { trial_id: string; daily_returns: unknown; observations: number };
  backtest_results: { deployment_id: string; daily_returns: unknown };
}

// Frozen in time: imports no app code.
export async function up(db: Kysely<Frozen>): Promise<void> {
  // A trial's daily returns were kept twice in this schema: in the TrialLedger and with its
  // backtest's result (backtest_results.daily_returns, with their dates). The ledger keeps their
  // count; the returns stay with the result, where GetTrialReturns reads them. A trial recorded
  // before results were kept has no result row: its returns stay in the ledger.
  await db.schema
    .alterTable("trial_ledger")
    .addColumn("observations", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("trial_ledger")
    .alterColumn("daily_returns", (c) => c.dropNotNull())
    .execute();
  await db
    .updateTable("trial_ledger")
    .set({ observations: sql`jsonb_array_length(daily_returns)` })
    .execute();
  await db
    .updateTable("trial_ledger as t")
    .set({ daily_returns: null })
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom("backtest_results as r")
          .select("r.deployment_id")
          .whereRef("r.deployment_id", "=", "t.trial_id")
          .where(sql<boolean>`jsonb_array_length(r.daily_returns) = t.observations`),
      ),
    )
    .execute();
}
