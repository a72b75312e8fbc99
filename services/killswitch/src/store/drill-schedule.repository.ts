import type { Kysely, Transaction } from "kysely";
import type { Quarter } from "../domain/quarters.js";
import type { DrillScheduleRow, KillSwitchDatabase } from "./killswitch.table.js";

type Db = Kysely<KillSwitchDatabase> | Transaction<KillSwitchDatabase>;

/** The platform's schedule (its migration writes the row, off). */
export async function platformSchedule(db: Db): Promise<DrillScheduleRow> {
  return db
    .selectFrom("drill_schedule")
    .selectAll()
    .where("scope", "=", "platform")
    .executeTakeFirstOrThrow();
}

export async function setPlatformSchedule(
  db: Db,
  s: Omit<DrillScheduleRow, "scope" | "watch_since" | "set_at">,
): Promise<void> {
  await db
    .updateTable("drill_schedule")
    .set({ ...s, set_at: new Date() })
    .where("scope", "=", "platform")
    .execute();
}

/** Drills started in the quarter that finished (a verdict, no_bots included). */
export async function finishedDrillsIn(db: Db, q: Quarter): Promise<number> {
  const r = await db
    .selectFrom("drills")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("started_at", ">=", q.start)
    .where("started_at", "<", q.end)
    .where("state", "=", "finished")
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Drills started in the quarter that are finished or still running: the quarter is taken care of. */
export async function liveOrFinishedDrillsIn(db: Db, q: Quarter): Promise<number> {
  const r = await db
    .selectFrom("drills")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("started_at", ">=", q.start)
    .where("started_at", "<", q.end)
    .where("state", "in", ["finished", "running"])
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Claims the quarter's scheduled start for this process: true for exactly one caller across
 * replicas (the row's primary key), until `releaseQuarterClaim` gives it back.
 */
export async function claimScheduledStart(db: Db, quarter: string): Promise<boolean> {
  const r = await db
    .insertInto("drill_quarters")
    .values({ quarter, scheduled_at: new Date() })
    .onConflict((oc) =>
      oc
        .column("quarter")
        .doUpdateSet({ scheduled_at: new Date() })
        .where("drill_quarters.scheduled_at", "is", null),
    )
    .executeTakeFirst();
  return (r.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

export async function recordScheduledDrill(
  db: Db,
  quarter: string,
  drillId: string,
): Promise<void> {
  await db
    .updateTable("drill_quarters")
    .set({ scheduled_drill_id: drillId })
    .where("quarter", "=", quarter)
    .execute();
}

/** A start the drill runner refused: the next tick may try again within the quarter. */
export async function releaseQuarterClaim(db: Db, quarter: string): Promise<void> {
  await db
    .updateTable("drill_quarters")
    .set({ scheduled_at: null })
    .where("quarter", "=", quarter)
    .where("scheduled_drill_id", "is", null)
    .execute();
}

/** Marks the quarter missed; true for the one caller that marked it. */
export async function markQuarterMissed(db: Db, quarter: string): Promise<boolean> {
  const r = await db
    .insertInto("drill_quarters")
    .values({ quarter, missed_at: new Date() })
    .onConflict((oc) =>
      oc
        .column("quarter")
        .doUpdateSet({ missed_at: new Date() })
        .where("drill_quarters.missed_at", "is", null),
    )
    .executeTakeFirst();
  return (r.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

export function quarterRows(db: Db, labels: string[]) {
  return db.selectFrom("drill_quarters").selectAll().where("quarter", "in", labels).execute();
}
