import type { JsonObject } from "@bufbuild/protobuf";
import { sql, type Kysely, type Transaction } from "kysely";
import { auditHash, GENESIS_HASH, type ChainedAuditFields, type ChainLink } from "@svc/lib/audit";
import { canonicalBytes } from "@svc/lib/license";
import type { IdentityDatabase, SecurityAuditRow } from "./identity.table.js";

/** An audit event before the chain places it. */
export type NewAuditEvent = Omit<ChainedAuditFields, "prev_hash">;

/**
 * Appends one event to the chain in the caller's transaction: under a lock every appender takes
 * (this service's consumers and handlers, on any instance), the head's hash becomes prev_hash and
 * head.seq + 1 the seq, so the chain has no fork and no gap. An id already in the chain (an event
 * delivered twice) appends nothing and returns false.
 */
export async function appendAuditEvent(
  trx: Transaction<IdentityDatabase>,
  e: NewAuditEvent,
): Promise<boolean> {
  await sql`select pg_advisory_xact_lock(hashtextextended('identity.security_audit_events', 0))`.execute(
    trx,
  );
  const seen = await trx
    .selectFrom("security_audit_events")
    .select("seq")
    .where("id", "=", e.id)
    .executeTakeFirst();
  if (seen) return false;
  const head = await trx
    .selectFrom("security_audit_events")
    .select(["seq", "hash"])
    .orderBy("seq", "desc")
    .limit(1)
    .executeTakeFirst();
  const fields: ChainedAuditFields = { ...e, prev_hash: head?.hash ?? GENESIS_HASH };
  await trx
    .insertInto("security_audit_events")
    .values({
      seq: String(Number(head?.seq ?? 0) + 1),
      id: e.id,
      occurred_at: e.occurred_at,
      service: e.service,
      action: e.action,
      outcome: e.outcome,
      resource: e.resource,
      actor_subject: e.actor.subject,
      actor_type: e.actor.actor_type,
      internal_user_id: e.actor.internal_user_id,
      agent_subject: e.actor.agent_subject,
      on_behalf_of: e.actor.on_behalf_of,
      request_id: e.request_id,
      trace_id: e.trace_id,
      details: new TextDecoder().decode(canonicalBytes(e.details)),
      prev_hash: fields.prev_hash,
      hash: auditHash(fields),
    })
    // What the checkpointer reads (watchAuditAppends) to vouch for this row.
    .returning(["seq", "hash", "prev_hash"])
    .execute();
  return true;
}

export interface AuditFilter {
  actor?: string;
  action?: string;
  resource?: string;
  since?: Date;
  until?: Date;
}

/** One page of the chain in seq order after `afterSeq`, filtered; `limit + 1` rows tell if more follow. */
export async function listAuditEvents(
  db: Kysely<IdentityDatabase>,
  f: AuditFilter,
  afterSeq: number,
  limit: number,
): Promise<SecurityAuditRow[]> {
  let q = db.selectFrom("security_audit_events").selectAll().where("seq", ">", String(afterSeq));
  if (f.action) q = q.where("action", "=", f.action);
  if (f.resource) q = q.where("resource", "=", f.resource);
  if (f.since) q = q.where("occurred_at", ">=", f.since);
  if (f.until) q = q.where("occurred_at", "<", f.until);
  const actor = f.actor;
  if (actor)
    q = q.where((w) =>
      w.or([
        w("actor_subject", "=", actor),
        w("agent_subject", "=", actor),
        w("on_behalf_of", "=", actor),
        w("internal_user_id", "=", actor),
      ]),
    );
  return q
    .orderBy("seq")
    .limit(limit + 1)
    .execute();
}

/** The whole chain in seq order, for a verify that needs every row. */
export function wholeChain(db: Kysely<IdentityDatabase>): Promise<SecurityAuditRow[]> {
  return db.selectFrom("security_audit_events").selectAll().orderBy("seq").execute();
}

/** The stored hash of each of `seqs` that exists. */
export async function hashesAt(
  db: Kysely<IdentityDatabase>,
  seqs: number[],
): Promise<Map<number, string>> {
  if (seqs.length === 0) return new Map();
  const rows = await db
    .selectFrom("security_audit_events")
    .select(["seq", "hash"])
    .where("seq", "in", seqs.map(String))
    .execute();
  return new Map(rows.map((r) => [Number(r.seq), r.hash]));
}

/** The newest row's seq and hash, or seq 0 and the genesis hash for an empty chain. */
export async function chainHead(
  db: Kysely<IdentityDatabase>,
): Promise<{ seq: number; hash: string }> {
  const head = await db
    .selectFrom("security_audit_events")
    .select(["seq", "hash"])
    .orderBy("seq", "desc")
    .limit(1)
    .executeTakeFirst();
  return head ? { seq: Number(head.seq), hash: head.hash } : { seq: 0, hash: GENESIS_HASH };
}

/** A stored row as the chain's hash reads it. */
export function chainLinkOf(r: SecurityAuditRow): ChainLink {
  return {
    seq: Number(r.seq),
    id: r.id,
    occurred_at: r.occurred_at.toISOString(),
    service: r.service,
    action: r.action,
    outcome: r.outcome,
    resource: r.resource,
    actor: {
      subject: r.actor_subject,
      actor_type: r.actor_type,
      internal_user_id: r.internal_user_id,
      agent_subject: r.agent_subject,
      on_behalf_of: r.on_behalf_of,
    },
    request_id: r.request_id,
    trace_id: r.trace_id,
    details: JSON.parse(r.details) as JsonObject,
    prev_hash: r.prev_hash,
    hash: r.hash,
  };
}
