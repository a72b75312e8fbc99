import { randomUUID } from "node:crypto";
import type { HandlerContext } from "@connectrpc/connect";
import type { Transaction } from "kysely";
import { auditActorOf, auditOriginOf, currentTraceId, type AuditEntry } from "@svc/lib/audit";
import { appendAuditEvent } from "../store/audit-trail.repository.js";
import type { IdentityDatabase } from "../store/identity.table.js";

/** Appends an audit row in the caller's transaction, so the change and its row commit together. */
export function auditInTransaction(
  trx: Transaction<IdentityDatabase>,
  ctx: HandlerContext,
  entry: AuditEntry,
) {
  const origin = auditOriginOf(ctx);
  return appendAuditEvent(trx, {
    id: randomUUID(),
    occurred_at: new Date().toISOString(),
    service: "identity",
    action: entry.action,
    outcome: entry.outcome,
    resource: entry.resource,
    actor: auditActorOf(origin.principal, origin.system),
    request_id: origin.requestId ?? "",
    trace_id: currentTraceId(),
    details: entry.details ?? {},
  });
}

/** The subject of the person calling (the person an agent acts for). */
export function callerSubject(ctx: HandlerContext): string {
  const p = auditOriginOf(ctx).principal;
  return p?.onBehalfOfSub ?? p?.sub ?? "";
}
