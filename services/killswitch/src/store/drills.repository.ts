import type { Kysely, Transaction } from "kysely";
import type {
  DrillFigures,
  DrillRow,
  DrillStateName,
  DrillVerdictName,
  KillSwitchDatabase,
} from "./killswitch.table.js";

type Db = Kysely<KillSwitchDatabase> | Transaction<KillSwitchDatabase>;

/** Records a drill as it starts (running, with its switch and TTL) or as it ends at once (no bots). */
export async function insertDrill(
  db: Db,
  d: {
    id: string;
    startedAt: Date;
    startedBy: string;
    reason: string;
    figures: DrillFigures;
    state: DrillStateName;
    verdict: DrillVerdictName | null;
    endedAt: Date | null;
    switchName: string | null;
    releaseBy: Date | null;
  },
): Promise<void> {
  await db
    .insertInto("drills")
    .values({
      id: d.id,
      started_at: d.startedAt,
      started_by: d.startedBy,
      reason: d.reason,
      result: JSON.stringify(d.figures),
      state: d.state,
      verdict: d.verdict,
      ended_at: d.endedAt,
      switch_name: d.switchName,
      release_by: d.releaseBy,
    })
    .execute();
}

/** Ends a running drill with its figures; false when it had already ended (the sweep got there first). */
export async function endDrill(
  db: Db,
  id: string,
  end: { state: DrillStateName; verdict: DrillVerdictName | null; figures: DrillFigures },
): Promise<boolean> {
  const r = await db
    .updateTable("drills")
    .set({
      state: end.state,
      verdict: end.verdict,
      result: JSON.stringify(end.figures),
      ended_at: new Date(),
    })
    .where("id", "=", id)
    .where("state", "=", "running")
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** One drill, or undefined. */
export function findDrill(db: Db, id: string): Promise<DrillRow | undefined> {
  return db.selectFrom("drills").selectAll().where("id", "=", id).executeTakeFirst();
}

/** The drills still running, oldest first. */
export function runningDrills(db: Db): Promise<DrillRow[]> {
  return db
    .selectFrom("drills")
    .selectAll()
    .where("state", "=", "running")
    .orderBy("started_at")
    .execute();
}

/** Running drills whose switch lapsed before `before`: no live process is still judging them. */
export function overdueDrills(db: Db, before: Date): Promise<DrillRow[]> {
  return db
    .selectFrom("drills")
    .selectAll()
    .where("state", "=", "running")
    .where("release_by", "<", before)
    .execute();
}

/** Every drill started in a calendar year (UTC), oldest first: what an annual report embeds. */
export function drillsInYear(db: Db, year: number): Promise<DrillRow[]> {
  return db
    .selectFrom("drills")
    .selectAll()
    .where("started_at", ">=", new Date(Date.UTC(year, 0, 1)))
    .where("started_at", "<", new Date(Date.UTC(year + 1, 0, 1)))
    .orderBy("started_at")
    .orderBy("id")
    .execute();
}

/** The latest drills, newest first. */
export function latestDrills(db: Db, limit: number): Promise<DrillRow[]> {
  return db.selectFrom("drills").selectAll().orderBy("started_at", "desc").limit(limit).execute();
}
