import { sql, type Kysely } from "kysely";

// Frozen in time: imports no app code.
export async function up(db: Kysely<unknown>): Promise<void> {
  // A parameter sweep: its checked plan, kept whole so that any process can advance it (a
  // walk-forward fold's out-of-sample run) and a retry with the same key finds it.
  await db.schema
    .createTable("sweeps")
    .addColumn("id", "uuid", (c) => c.primaryKey())
    .addColumn("bot_id", "uuid", (c) => c.notNull().references("bots.id").onDelete("cascade"))
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("request_key", "text", (c) => c.notNull())
    // The request as checked (mode, parameters, range, walk-forward): a retry must match it.
    .addColumn("request", "jsonb", (c) => c.notNull())
    // The combinations run, in order: [{...parameters}], the index of each is its number.
    .addColumn("combinations", "jsonb", (c) => c.notNull())
    .addColumn("skipped", "integer", (c) => c.notNull().defaultTo(0))
    // Walk-forward folds: [{is_start, is_end, oos_end}] as ISO times; [] without walk-forward.
    .addColumn("folds", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("cancelled_at", "timestamptz")
    // Set once every walk-forward fold has its out-of-sample run (or none can have one): the
    // advance pass looks only at sweeps without it.
    .addColumn("advanced_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint("sweeps_bot_request_key_unique", ["bot_id", "request_key"])
    .execute();
  // The walk-forward advance, after every run that settles, looks only at sweeps still advancing.
  await db.schema
    .createIndex("sweeps_advancing_idx")
    .on("sweeps")
    .column("created_at")
    .where(
      sql<boolean>`advanced_at is null and cancelled_at is null and jsonb_array_length(folds) > 0`,
    )
    .execute();
  await db.schema
    .createIndex("sweeps_bot_created_idx")
    .on("sweeps")
    .columns(["bot_id", "created_at", "id"])
    .execute();
  // A sweep's backtests are ordinary queued backtests that say which combination and fold they are.
  await db.schema
    .alterTable("bot_deployments")
    .addColumn("sweep_id", "uuid", (c) => c.references("sweeps.id").onDelete("cascade"))
    // The combination's number; null for a fold's out-of-sample run.
    .addColumn("sweep_index", "integer")
    // The walk-forward fold, from 1; 0 without walk-forward.
    .addColumn("sweep_fold", "integer")
    .execute();
  await db.schema
    .createIndex("bot_deployments_sweep_idx")
    .on("bot_deployments")
    .columns(["sweep_id", "sweep_fold", "sweep_index"])
    .where(sql.ref("sweep_id"), "is not", null)
    .execute();
  // One out-of-sample run per fold, however many processes advance the sweep at once.
  await db.schema
    .createIndex("bot_deployments_sweep_oos_unique")
    .on("bot_deployments")
    .columns(["sweep_id", "sweep_fold"])
    .unique()
    .where(sql.ref("sweep_id"), "is not", null)
    .where(sql.ref("sweep_index"), "is", null)
    .execute();
}
