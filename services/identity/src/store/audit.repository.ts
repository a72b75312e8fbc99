import type { JsonObject } from "@bufbuild/protobuf";
import type { Transaction } from "kysely";
import type { IdentityDatabase } from "./identity.table.js";

/** An audit-first admin action: written in the caller's transaction, before what it records. */
export async function insertAuditEvent(
  trx: Transaction<IdentityDatabase>,
  e: {
    eventType: string;
    actorSub: string;
    actorType: string;
    target: string;
    details: JsonObject;
  },
): Promise<void> {
  await trx
    .insertInto("audit_events")
    .values({
      event_type: e.eventType,
      actor_sub: e.actorSub,
      actor_type: e.actorType,
      target: e.target,
      details: JSON.stringify(e.details),
    })
    .execute();
}
