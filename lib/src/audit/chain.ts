import { createHash } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";
import { DELEGATION_PROFILE } from "../auth/agent-broker.js";
import { canonicalBytes } from "../license/canonical.js";

/** The prev_hash of the first row of a chain. */
export const GENESIS_HASH = "0".repeat(64);

/** Who an agent acted for, as the spec's `details.delegation` names it (and the person's subject). */
export interface AuditDelegation {
  agent_subject: string;
  /** The person's internal user id. */
  on_behalf_of_user_id: string;
  /** The person's token subject. */
  on_behalf_of_sub: string;
  profile: string;
  /** Set only on a block the rename's migration added to a row hashed without it. */
  added_by?: string;
}

/** The migration that gave the trail the spec's names; it marks the delegation blocks it added. */
export const SPEC_COLUMNS_MIGRATION = "2026-11-30T0100-audit-spec-columns";

/**
 * How a row's hash is computed: 1 for rows appended before the trail took the spec's column names
 * (the hash covers the fields under their old names, below), 2 since (the hash covers the row's
 * columns as they are named now).
 */
export type AuditHashFormat = 1 | 2;

/** Everything a row's hash covers: all it records, and the hash of the row before it. */
export interface ChainedAuditFields {
  id: string;
  /** RFC 3339 with milliseconds, UTC (Date.toISOString): when the act happened. */
  created_at: string;
  service: string;
  /** What was done: killswitch.engaged, workload_run, admin.identity.license.revoke... */
  event_type: string;
  outcome: string;
  resource: string;
  /** Who made the call: the token subject, `service|<name>`, or `system:<job>`. */
  actor_user_id: string;
  actor_type: string;
  /** The platform's internal id of the person the act is theirs (for an agent, the person it acted for). */
  user_id: string;
  request_id: string;
  trace_id: string;
  /** What else matters; a delegated call carries `delegation` (AuditDelegation). */
  details: JsonObject;
  prev_hash: string;
  hash_format: AuditHashFormat;
}

/**
 * The hash of one audit row: SHA-256, hex, over the RFC 8785 canonical JSON of its fields. Anyone
 * can recompute it from a row as the API returns it, so `svc audit verify` needs no secret: a row
 * altered, inserted or removed breaks every link after it.
 *
 * @example auditHash({ ...row, prev_hash: previous.hash, hash_format: 2 })
 */
export function auditHash(fields: ChainedAuditFields): string {
  const covered = fields.hash_format === 1 ? formatOneFieldsOf(fields) : fields;
  return createHash("sha256").update(canonicalBytes(covered)).digest("hex");
}

/**
 * A row appended before the rename as its hash covered it: the old field names, and the actor as
 * one object whose agent and person the delegation block holds now. A block the rename's
 * migration added (it says so, and holds nothing else) was not hashed: it is left out.
 */
function formatOneFieldsOf(f: ChainedAuditFields): JsonObject {
  const { delegation, ...rest } = f.details;
  const d = (delegation ?? {}) as Partial<AuditDelegation>;
  // Only what the migration wrote can be left out: an agent's subject, and as the person acted for
  // the row's own user (which the hash covers). A block edited after, or one claiming to be added
  // to a row that had no agent, is hashed as it stands, and so fails.
  const added =
    d.added_by === SPEC_COLUMNS_MIGRATION &&
    d.profile === DELEGATION_PROFILE &&
    typeof d.agent_subject === "string" &&
    d.agent_subject !== "" &&
    d.on_behalf_of_user_id === f.user_id &&
    Object.keys(d).length === 5;
  return {
    id: f.id,
    occurred_at: f.created_at,
    service: f.service,
    action: f.event_type,
    outcome: f.outcome,
    resource: f.resource,
    actor: {
      subject: f.actor_user_id,
      actor_type: f.actor_type,
      internal_user_id: f.user_id,
      agent_subject: d.agent_subject ?? "",
      on_behalf_of: d.on_behalf_of_sub ?? "",
    },
    request_id: f.request_id,
    trace_id: f.trace_id,
    details: added ? rest : f.details,
    prev_hash: f.prev_hash,
  };
}

/** A row as a verifier reads it: its chained fields, its place and the hash it claims. */
export type ChainLink = ChainedAuditFields & { seq: number; hash: string };

/** Where a chain stops holding, and why, in words for the person running the check. */
export interface BrokenLink {
  seq: number;
  id: string;
  problem: "rows_missing" | "prev_hash_mismatch" | "altered";
  why: string;
}

/**
 * Walks `rows` in seq order from `previousHash` (the genesis, or the hash of the row before the
 * first one given) and returns the first row that does not hold, or undefined when all do.
 */
export function firstBrokenLink(
  rows: Iterable<ChainLink>,
  previous: { hash: string; seq: number } = { hash: GENESIS_HASH, seq: 0 },
): BrokenLink | undefined {
  let prev = previous;
  for (const row of rows) {
    if (row.seq !== prev.seq + 1)
      return {
        seq: row.seq,
        id: row.id,
        problem: "rows_missing",
        why: `expected seq ${prev.seq + 1} next, found ${row.seq}: rows are missing`,
      };
    if (row.prev_hash !== prev.hash)
      return {
        seq: row.seq,
        id: row.id,
        problem: "prev_hash_mismatch",
        why: `prev_hash ${row.prev_hash} is not the hash of row ${prev.seq} (${prev.hash})`,
      };
    const { seq: _seq, hash, ...fields } = row;
    const recomputed = auditHash(fields);
    if (recomputed !== hash)
      return {
        seq: row.seq,
        id: row.id,
        problem: "altered",
        why: `the row's content does not hash to its hash (${hash}; recomputed ${recomputed}): it was altered`,
      };
    prev = { hash, seq: row.seq };
  }
  return undefined;
}
