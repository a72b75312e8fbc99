import { sql, type Kysely } from "kysely";

/** The columns this migration touches, as they were when it was written. */
interface Frozen {
  bot_deployments: { target: string; status: string; error: string | null };
}

// Frozen in time: imports no app code.
export async function up(db: Kysely<Frozen>): Promise<void> {
  // A paper session halted by a kill switch waits to restart on release: it gets a status of its
  // own (parked) instead of being told apart from a final halt by its error text.
  await db.schema
    .alterTable("bot_deployments")
    .dropConstraint("bot_deployments_status_check")
    .execute();
  await db
    .updateTable("bot_deployments")
    .set({ status: "parked", error: null })
    .where("target", "=", "paper")
    .where("status", "=", "halted")
    .where("error", "=", "kill switch")
    .execute();
  await db.schema
    .alterTable("bot_deployments")
    .addCheckConstraint(
      "bot_deployments_status_check",
      sql`status in ('pending', 'running', 'parked', 'success', 'failed', 'halted')`,
    )
    .execute();
}
