import type { Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Conformance and stress runs are regulatory evidence a signed report rests on, kept 7 years:
  // deleting their bot must not take them with it. The route refuses first; this is the floor.
  await db.schema
    .alterTable("compliance_runs")
    .dropConstraint("compliance_runs_bot_id_fkey")
    .execute();
  await db.schema
    .alterTable("compliance_runs")
    .addForeignKeyConstraint("compliance_runs_bot_id_fkey", ["bot_id"], "bots", ["id"])
    .onDelete("restrict")
    .execute();
}
