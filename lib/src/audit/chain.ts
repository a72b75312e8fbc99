import { createHash } from "node:crypto";
import type { JsonObject } from "@bufbuild/protobuf";
import { canonicalBytes } from "../license/canonical.js";

/** The prev_hash of the first row of a chain. */
export const GENESIS_HASH = "0".repeat(64);

/** Everything a row's hash covers: all it records, and the hash of the row before it. */
export interface ChainedAuditFields {
  id: string;
  /** RFC 3339 with milliseconds, UTC (Date.toISOString). */
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
  prev_hash: string;
}

/**
 * The hash of one audit row: SHA-256, hex, over the RFC 8785 canonical JSON of its fields. Anyone
 * can recompute it from a row as the API returns it, so `svc audit verify` needs no secret: a row
 * altered, inserted or removed breaks every link after it.
 *
 * @example auditHash({ ...row, prev_hash: previous.hash })
 */
export function auditHash(fields: ChainedAuditFields): string {
  return createHash("sha256").update(canonicalBytes(fields)).digest("hex");
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
