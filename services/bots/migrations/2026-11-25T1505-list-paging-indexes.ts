import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // Every list pages by its sort keys (keyset pagination): an index in that order, behind each
  // filter a user lists by, makes the last page cost what the first does. A tie on a timestamp
  // is broken by the id, so the id is part of every key.
  await db.schema
    .createIndex("bots_created_idx")
    .on("bots")
    .columns(["created_at", "id"])
    .execute();
  for (const filter of ["status", "kind", "fleet"])
    await db.schema
      .createIndex(`bots_${filter}_created_idx`)
      .on("bots")
      .columns([filter, "created_at", "id"])
      .execute();
  // The (fleet, created_at, id) index answers every lookup by fleet the old one did.
  await db.schema.dropIndex("bots_fleet_idx").execute();
  // The fleet column is the current spec's fleet; rows written before it was kept in step agree.
  const specFleet = sql<string | null>`nullif(spec->>'fleet', '')`;
  await (db as unknown as Kysely<{ bots: { fleet: string | null } }>)
    .updateTable("bots")
    .set({ fleet: specFleet })
    .where(sql<boolean>`fleet is distinct from ${specFleet}`)
    .execute();

  await db.schema
    .createIndex("bot_deployments_bot_created_idx")
    .on("bot_deployments")
    .columns(["bot_id", "created_at", "id"])
    .execute();
  await db.schema.dropIndex("bot_deployments_bot_idx").execute();

  await db.schema
    .createIndex("trial_ledger_bot_recorded_idx")
    .on("trial_ledger")
    .columns(["bot_id", "recorded_at", "trial_id"])
    .execute();

  await db.schema
    .createIndex("compliance_runs_bot_created_id")
    .on("compliance_runs")
    .columns(["bot_id", "created_at", "id"])
    .execute();
  await db.schema.dropIndex("compliance_runs_bot_created").execute();

  // A page of bots with their runtime reads each bot's latest phase event: these two types are
  // a handful per session among its many bars and orders.
  await db.schema
    .createIndex("bot_events_phase_idx")
    .on("bot_events")
    .columns(["bot_id", "seq"])
    .where(sql.ref("type"), "in", ["session_started", "phase_changed"])
    .execute();
}
