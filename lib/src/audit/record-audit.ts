import { randomUUID } from "node:crypto";
import { create, getOption, toBinary, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { HandlerContext } from "@connectrpc/connect";
import { trace } from "@opentelemetry/api";
import type { Transaction } from "kysely";
import {
  AuditRecordedSchema,
  event_subject as eventSubject,
} from "@svc/gen/svc/events/v1/events_pb.js";
import type { Principal } from "../auth/index.js";
import { principalKey } from "../auth/index.js";
import { enqueueEvent, type EventBus } from "../bus/index.js";
import { requestIdKey } from "../telemetry/index.js";

/** The subject audit events travel on, from the contract. */
export const AUDIT_SUBJECT = getOption(AuditRecordedSchema, eventSubject);

export type AuditOutcome = "succeeded" | "denied" | "failed";

/** What a service says of an act; who, when, and which request come from the call itself. */
export interface AuditEntry {
  action: string;
  outcome: AuditOutcome;
  resource: string;
  details?: JsonObject;
}

/** Who acted, as an AuditRecorded event carries it (the identity service maps it onto the row). */
export interface AuditActor {
  subject: string;
  actor_type: string;
  internal_user_id: string;
  agent_subject: string;
  on_behalf_of: string;
}

/** The caller as the audit trail names it; no principal is the platform itself (a sweep, a controller). */
export function auditActorOf(p: Principal | undefined, system = "system"): AuditActor {
  if (!p)
    return {
      subject: system,
      actor_type: "system",
      internal_user_id: "",
      agent_subject: "",
      on_behalf_of: "",
    };
  return {
    subject: p.sub,
    actor_type: p.actorType,
    internal_user_id: p.internalUserId ?? "",
    agent_subject: p.agentSubject ?? "",
    on_behalf_of: p.onBehalfOfSub ?? "",
  };
}

/** The trace the current call belongs to, so an audit row leads to its spans. */
export function currentTraceId(): string {
  return trace.getActiveSpan()?.spanContext().traceId ?? "";
}

/** Who called and which request it was, taken from an RPC's context (or none: a background job). */
export interface AuditOrigin {
  principal?: Principal;
  requestId?: string;
  /** Names the background job acting when there is no caller (system:ttl-sweep, say). */
  system?: string;
}

export function auditOriginOf(ctx: HandlerContext): AuditOrigin {
  return { principal: ctx.values.get(principalKey), requestId: ctx.values.get(requestIdKey) };
}

/**
 * Writes an AuditRecorded event to the service's outbox in the caller's transaction: the record
 * exists exactly when the change it describes does (or, for a refusal, with nothing else). The
 * identity service appends it to the platform-wide chain.
 *
 * @example await recordAudit(trx, "killswitch", "killswitch", auditOriginOf(ctx), { action: "killswitch.engaged", outcome: "succeeded", resource: `kill_switch/${name}` });
 */
export async function recordAudit<DB>(
  trx: Transaction<DB>,
  schema: string,
  service: string,
  origin: AuditOrigin,
  entry: AuditEntry,
): Promise<string> {
  return enqueueEvent(trx, schema, {
    subject: AUDIT_SUBJECT,
    type: AuditRecordedSchema.typeName,
    payload: toBinary(AuditRecordedSchema, auditEvent(service, origin, entry)),
  });
}

/**
 * Publishes an act that changed nothing (a refused step-up) straight to the bus: there is no
 * transaction to join. A lost publish loses the record, never the refusal.
 */
export async function publishAudit(
  bus: EventBus,
  service: string,
  origin: AuditOrigin,
  entry: AuditEntry,
): Promise<void> {
  await bus.publish(
    AUDIT_SUBJECT,
    toBinary(AuditRecordedSchema, auditEvent(service, origin, entry)),
    {
      msgId: randomUUID(),
      headers: { "svc-event-type": AuditRecordedSchema.typeName },
    },
  );
}

function auditEvent(service: string, origin: AuditOrigin, entry: AuditEntry) {
  const actor = auditActorOf(origin.principal, origin.system);
  return create(AuditRecordedSchema, {
    service,
    action: entry.action,
    outcome: entry.outcome,
    resource: entry.resource,
    actor: {
      subject: actor.subject,
      actorType: actor.actor_type,
      internalUserId: actor.internal_user_id,
      agentSubject: actor.agent_subject,
      onBehalfOf: actor.on_behalf_of,
    },
    requestId: origin.requestId ?? "",
    traceId: currentTraceId(),
    occurredAt: timestampFromDate(new Date()),
    details: entry.details ?? {},
  });
}
