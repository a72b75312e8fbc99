import type { Kysely } from "kysely";
import { endDrill, overdueDrills } from "../store/drills.repository.js";
import type { DrillFigures, KillSwitchDatabase } from "../store/killswitch.table.js";

/**
 * Ends the drills a dead process left running. Their switch carries a TTL just past the drill's
 * longest bound, so the key reconciler releases the platform by itself; once that moment is past
 * by `graceMs` (the restart check and the write of the verdicts), no live process is still
 * judging the drill, and it is recorded as interrupted, without a verdict: what the dead process
 * heard from the runners died with it. Drills this process is judging are left alone.
 */
export async function sweepInterruptedDrills(
  db: Kysely<KillSwitchDatabase>,
  inFlight: Set<string>,
  graceMs: number,
): Promise<string[]> {
  const ended: string[] = [];
  for (const d of await overdueDrills(db, new Date(Date.now() - graceMs))) {
    if (inFlight.has(d.id)) continue;
    const figures: DrillFigures = {
      ...d.result,
      note: `the killswitch service that ran this drill stopped before judging it; its switch ${d.switch_name ?? ""} lapsed by its TTL at ${d.release_by ? new Date(d.release_by).toISOString() : "?"}`,
    };
    if (await endDrill(db, d.id, { state: "interrupted", verdict: null, figures }))
      ended.push(d.id);
  }
  return ended;
}
