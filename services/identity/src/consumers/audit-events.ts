import { fromBinary } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import type { Kysely } from "kysely";
import { AuditRecordedSchema } from "@svc/gen/svc/events/v1/events_pb.js";
import { AUDIT_SUBJECT } from "@svc/lib/audit";
import type { BusMessage, BusSubscription, EventBus } from "@svc/lib/bus";
import { withDeadline } from "@svc/lib/deadline";
import { appendAuditEvent } from "../store/audit-trail.repository.js";
import type { IdentityDatabase } from "../store/identity.table.js";

const CONSUMER = "identity-audit-trail";

/**
 * Appends every service's AuditRecorded events to the chain, once each (the event id is the
 * row id, so a redelivery appends nothing). A failed append throws and the bus redelivers.
 */
export function consumeAuditEvents(deps: {
  bus: EventBus;
  db: Kysely<IdentityDatabase>;
  timeoutMs: number;
}): Promise<BusSubscription> {
  return deps.bus.subscribe(AUDIT_SUBJECT, { durable: CONSUMER }, async (m: BusMessage) => {
    const e = fromBinary(AuditRecordedSchema, m.data);
    await withDeadline(
      deps.db.transaction().execute((trx) =>
        appendAuditEvent(trx, {
          id: m.id,
          occurred_at: (e.occurredAt ? timestampDate(e.occurredAt) : new Date()).toISOString(),
          service: e.service,
          action: e.action,
          outcome: e.outcome,
          resource: e.resource,
          actor: {
            subject: e.actor?.subject ?? "",
            actor_type: e.actor?.actorType ?? "",
            internal_user_id: e.actor?.internalUserId ?? "",
            agent_subject: e.actor?.agentSubject ?? "",
            on_behalf_of: e.actor?.onBehalfOf ?? "",
          },
          request_id: e.requestId,
          trace_id: e.traceId,
          details: e.details ?? {},
        }),
      ),
      deps.timeoutMs,
      "database",
    );
  });
}
