import type { Kysely, Transaction } from "kysely";
import { keysetAfter, timestampKey } from "@svc/lib/paging";
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

/** The sort keys of the drills list: started_at, then id to break a tie. */
export const DRILL_KEYS = ["timestamp", "uuid"] as const;

/**
 * One page of drills. With a year (UTC), the drills started in it, oldest first: what an annual
 * report embeds; without, every drill, newest first. Both walk the (started_at, id) index, the
 * second backwards; `after` resumes after a page token's keys in the list's own direction.
 */
export function listDrills(
  db: Db,
  filter: { year?: number; limit: number; after?: readonly string[] },
): Promise<Array<DrillRow & { started_key: string }>> {
  const direction = filter.year ? "asc" : "desc";
  let q = db
    .selectFrom("drills")
    .selectAll()
    .select((eb) => timestampKey(eb.ref("started_at")).as("started_key"));
  if (filter.year)
    q = q
      .where("started_at", ">=", new Date(Date.UTC(filter.year, 0, 1)))
      .where("started_at", "<", new Date(Date.UTC(filter.year + 1, 0, 1)));
  if (filter.after)
    q = q.where((eb) =>
      keysetAfter([eb.ref("started_at"), eb.ref("id")], filter.after!, DRILL_KEYS, direction),
    );
  return q.orderBy("started_at", direction).orderBy("id", direction).limit(filter.limit).execute();
}
