import { fromBinary, getOption } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Kysely } from "kysely";
import { ControlChangedSchema, event_subject } from "@svc/gen/svc/events/v1/events_pb.js";
import { processOnce, type BusSubscription, type EventBus } from "@svc/lib/bus";
import { insertControlChange } from "../store/compliance.repository.js";
import type { ComplianceDatabase } from "../store/compliance.table.js";

const CONSUMER = "compliance-control-changes";

/**
 * Records the material control changes the bots and killswitch services announce
 * (ControlChanged): each marks the year's validation report as due and is listed in it.
 */
export function consumeControlChanges(deps: {
  bus: EventBus;
  db: Kysely<ComplianceDatabase>;
  schema: string;
}): Promise<BusSubscription> {
  const subject = getOption(ControlChangedSchema, event_subject);
  return deps.bus.subscribe(subject, { durable: CONSUMER }, async (m) => {
    if (m.headers["svc-event-type"] !== ControlChangedSchema.typeName) return;
    const e = fromBinary(ControlChangedSchema, m.data);
    await processOnce(deps.db, deps.schema, CONSUMER, m.id, async (trx) => {
      await insertControlChange(trx, {
        id: e.changeId || m.id,
        kind: e.kind,
        bot_id: e.botId || null,
        bot_slug: e.botSlug || null,
        fleet: e.fleet || null,
        version: e.version || null,
        previous_version: e.previousVersion || null,
        actor: e.actor,
        changed_at: e.changedAt ? timestampDate(e.changedAt) : new Date(),
        before: e.before ?? {},
        after: e.after ?? {},
      });
    });
  });
}
