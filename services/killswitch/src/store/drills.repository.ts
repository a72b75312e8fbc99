import type { Kysely, Transaction } from "kysely";
import type { DrillFigures, DrillRow, KillSwitchDatabase } from "./killswitch.table.js";

type Db = Kysely<KillSwitchDatabase> | Transaction<KillSwitchDatabase>;

/** Keeps one drill's figures. */
export async function insertDrill(
  db: Db,
  d: { id: string; startedBy: string; reason: string; figures: DrillFigures },
): Promise<void> {
  await db
    .insertInto("drills")
    .values({
      id: d.id,
      started_by: d.startedBy,
      reason: d.reason,
      result: JSON.stringify(d.figures),
    })
    .execute();
}

/** The latest drills, newest first. */
export function latestDrills(db: Db, limit: number): Promise<DrillRow[]> {
  return db.selectFrom("drills").selectAll().orderBy("started_at", "desc").limit(limit).execute();
}
