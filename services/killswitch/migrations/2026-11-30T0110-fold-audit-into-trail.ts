import { randomUUID } from "node:crypto";
import { create, toBinary, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { sql, type Kysely } from "kysely";
import { AuditRecordedSchema } from "@svc/gen/svc/events/v1/events_pb.js";

// Frozen in time: imports no app code (the contract's AuditRecorded message only, whose wire form
// never changes). There is one audit trail, identity's. The killswitch schema's own
// security_audit_events table (written before the trail existed, by the TTL sweep and drills)
// goes: each of its rows leaves through the outbox as an AuditRecorded event, in its order, and
// the identity service chains it like any other; then the table is dropped, in the same
// transaction, so no row is lost and none is sent twice.
export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{
    id: string;
    created_at: Date;
    user_id: string;
    actor_user_id: string;
    event_type: string;
    details: JsonObject | null;
  }>`select id, created_at, user_id, actor_user_id, event_type, details
     from killswitch.security_audit_events order by id`.execute(db);
  for (const r of rows) {
    const details = r.details ?? {};
    const system = r.actor_user_id === "system";
    const event = create(AuditRecordedSchema, {
      service: "killswitch",
      action: r.event_type,
      outcome: "succeeded",
      resource: resourceOf(r.event_type, details),
      actor: {
        subject: r.actor_user_id,
        actorType: system ? "system" : "user",
        internalUserId: "",
        agentSubject: "",
        onBehalfOf: "",
      },
      requestId: "",
      traceId: "",
      occurredAt: timestampFromDate(r.created_at),
      details: {
        ...details,
        // Where it was first written and for whom, as the old table named it.
        folded_from: { table: "killswitch.security_audit_events", id: r.id, user_id: r.user_id },
      },
    });
    await sql`insert into killswitch.outbox (id, subject, type, payload, headers)
      values (${randomUUID()}, 'svc.audit.recorded', ${AuditRecordedSchema.typeName},
              ${Buffer.from(toBinary(AuditRecordedSchema, event))},
              ${JSON.stringify({ "svc-event-type": AuditRecordedSchema.typeName })}::jsonb)`.execute(
      db,
    );
  }
  await sql`drop table killswitch.security_audit_events`.execute(db);
}

/** What the old rows acted on: a switch by name, a drill by id. */
function resourceOf(eventType: string, details: JsonObject): string {
  if (eventType.startsWith("killswitch.drill") && typeof details.id === "string")
    return `drill/${details.id}`;
  if (typeof details.name === "string") return `kill_switch/${details.name}`;
  return "";
}
