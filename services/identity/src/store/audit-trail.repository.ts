import type { JsonObject } from "@bufbuild/protobuf";
import { sql, type Kysely, type Transaction } from "kysely";
import {
  auditHash,
  DELEGATION_PROFILE,
  GENESIS_HASH,
  type ChainedAuditFields,
  type ChainLink,
} from "@svc/lib/audit";
import { canonicalBytes } from "@svc/lib/license";
import type { IdentityDatabase, SecurityAuditRow } from "./identity.table.js";

/** An audit event as a service records it (AuditRecorded), before the chain places it. */
export interface NewAuditEvent {
  id: string;
  /** When the act happened, RFC 3339 (toISOString). */
  occurred_at: string;
  service: string;
  action: string;
  outcome: string;
  resource: string;
  actor: {
    subject: string;
    actor_type: string;
    internal_user_id: string;
    agent_subject: string;
    on_behalf_of: string;
  };
  request_id: string;
  trace_id: string;
  details: JsonObject;
}

/**
 * The row the spec names (service-interface.md, security_audit_events): the act as event_type,
 * the caller as actor_user_id, the person as user_id, and for a delegated call a
 * `details.delegation` naming the agent, the person it acted for and the delegation profile.
 */
export function specFieldsOf(e: NewAuditEvent): Omit<ChainedAuditFields, "prev_hash"> {
  // A delegated act's block is the chain's, from the act's actor: the agent and the person it
  // acted for are nowhere else on the row. What a service wrote in its own block (the MCP tools
  // write one) stays beside it, but cannot name another agent or person.
  const delegated = e.actor.agent_subject !== "";
  const own = e.details.delegation;
  const theirs = own !== null && typeof own === "object" && !Array.isArray(own) ? own : {};
  return {
    id: e.id,
    created_at: e.occurred_at,
    service: e.service,
    event_type: e.action,
    outcome: e.outcome,
    resource: e.resource,
    actor_user_id: e.actor.subject,
    actor_type: e.actor.actor_type,
    user_id: e.actor.internal_user_id,
    request_id: e.request_id,
    trace_id: e.trace_id,
    // The chain's own block wins over anything a service put under the same name.
    details: delegated
      ? {
          ...e.details,
          delegation: {
            ...theirs,
            agent_subject: e.actor.agent_subject,
            on_behalf_of_user_id: e.actor.internal_user_id,
            on_behalf_of_sub: e.actor.on_behalf_of,
            profile: DELEGATION_PROFILE,
          },
        }
      : e.details,
    hash_format: 2,
  };
}

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
  const fields: ChainedAuditFields = { ...specFieldsOf(e), prev_hash: head?.hash ?? GENESIS_HASH };
  await trx
    .insertInto("security_audit_events")
    .values({
      ...fields,
      seq: String(Number(head?.seq ?? 0) + 1),
      details: new TextDecoder().decode(canonicalBytes(fields.details)),
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
  if (f.action) q = q.where("event_type", "=", f.action);
  if (f.resource) q = q.where("resource", "=", f.resource);
  if (f.since) q = q.where("created_at", ">=", f.since);
  if (f.until) q = q.where("created_at", "<", f.until);
  const actor = f.actor;
  if (actor)
    q = q.where((w) =>
      w.or([
        w("actor_user_id", "=", actor),
        w("user_id", "=", actor),
        // Only a delegated row's text is parsed: the others never hold the block.
        w(
          sql<string>`case when actor_type = 'agent' then details::jsonb #>> '{delegation,agent_subject}' end`,
          "=",
          actor,
        ),
        w(
          sql<string>`case when actor_type = 'agent' then details::jsonb #>> '{delegation,on_behalf_of_user_id}' end`,
          "=",
          actor,
        ),
        w(
          sql<string>`case when actor_type = 'agent' then details::jsonb #>> '{delegation,on_behalf_of_sub}' end`,
          "=",
          actor,
        ),
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
    created_at: r.created_at.toISOString(),
    service: r.service,
    event_type: r.event_type,
    outcome: r.outcome,
    resource: r.resource,
    actor_user_id: r.actor_user_id,
    actor_type: r.actor_type,
    user_id: r.user_id,
    request_id: r.request_id,
    trace_id: r.trace_id,
    details: JSON.parse(r.details) as JsonObject,
    prev_hash: r.prev_hash,
    hash: r.hash,
    hash_format: r.hash_format === 1 ? 1 : 2,
  };
}
