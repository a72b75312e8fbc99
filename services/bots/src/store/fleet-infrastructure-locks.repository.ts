import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { BotsDatabase } from "./bots.table.js";

/**
 * Takes the fleet for one infrastructure operation: answers a release, or undefined when another
 * operation holds it. A hold older than `staleAfterMs` (its process died mid-way) is taken over.
 */
export async function takeFleetInfrastructure(
  db: Kysely<BotsDatabase>,
  fleet: string,
  operation: string,
  staleAfterMs: number,
): Promise<(() => Promise<void>) | undefined> {
  const holder = randomUUID();
  const staleBefore = new Date(Date.now() - staleAfterMs);
  const taken = await db
    .insertInto("fleet_infrastructure_locks")
    .values({ fleet, operation, holder, started_at: new Date() })
    .onConflict((oc) =>
      oc
        .column("fleet")
        .doUpdateSet({ operation, holder, started_at: new Date() })
        .where("fleet_infrastructure_locks.started_at", "<", staleBefore),
    )
    .returning("holder")
    .executeTakeFirst();
  if (taken?.holder !== holder) return undefined;
  return async () => {
    await db
      .deleteFrom("fleet_infrastructure_locks")
      .where("fleet", "=", fleet)
      .where("holder", "=", holder)
      .execute();
  };
}

/** What holds the fleet now, for the refusal's message. */
export function fleetInfrastructureHolder(db: Kysely<BotsDatabase>, fleet: string) {
  return db
    .selectFrom("fleet_infrastructure_locks")
    .select(["operation", "started_at"])
    .where("fleet", "=", fleet)
    .executeTakeFirst();
}
