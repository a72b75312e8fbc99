import {
  verifyTrail,
  type ChainLink,
  type SignedCheckpoint,
  type TrailBreak,
} from "@svc/lib/audit";
import { publicKeysFromPem } from "@svc/lib/license";

/** What `svc audit verify` found: how much of the chain it read, and where it breaks, if it does. */
export interface AuditVerification {
  rows: number;
  headHash?: string;
  /** The newest seq a trusted signed checkpoint vouches for. */
  anchoredSeq: number;
  /** Trusted checkpoints compared with the rows, and where they are kept. */
  checkpoints: number;
  untrustedCheckpoints: number;
  checkpointStore: string;
  broken?: TrailBreak;
}

interface WireCheckpoint {
  format: string;
  seq: string | number;
  head_hash: string;
  time: string;
  key_id: string;
  signature: string;
}

interface WireCheckpoints {
  items?: WireCheckpoint[];
  keys?: { key_id: string; public_key_pem: string }[];
  store?: string;
}

/** A row as the API serves it: the spec's names are the ones the hash reads. */
interface WireAuditEvent {
  seq: string | number;
  id: string;
  created_at: string;
  service: string;
  event_type?: string;
  outcome: string;
  resource: string;
  actor_user_id?: string;
  actor?: { actor_type?: string } | null;
  user_id?: string;
  request_id: string;
  trace_id: string;
  details: ChainLink["details"] | null;
  prev_hash: string;
  hash: string;
  hash_format?: number;
}

/**
 * Reads the whole audit trail through `GET /admin/audit-events`, page by page in chain order, and
 * recomputes every link; then checks the rows against the signed checkpoints `GET
 * /admin/audit-checkpoints` reads from outside the database (the newest few before the rows, many
 * after), with the public keys it serves, or only those whose RFC 7638 id is in `pinnedKeyIds`.
 * The first sequence that does not hold is named. It needs no secret and trusts nothing the server
 * says about the chain but the rows and the signatures.
 */
export async function verifyAuditTrail(
  base: string,
  headers: Record<string, string>,
  timeoutMs = 10_000,
  pinnedKeyIds: string[] = [],
): Promise<AuditVerification> {
  const get = async <T>(path: string): Promise<T> => {
    const res = await fetch(`${base}${path}`, { headers, signal: AbortSignal.timeout(timeoutMs) });
    const body = (await res.json()) as T & { error?: { code: string; message: string } };
    if (!res.ok) throw new Error(`${res.status} ${body.error?.code}: ${body.error?.message}`);
    return body;
  };
  const before = await get<WireCheckpoints>("/admin/audit-checkpoints?limit=16");
  const links: ChainLink[] = [];
  for (let token = ""; ;) {
    const query = new URLSearchParams({ limit: "1000", ...(token ? { page_token: token } : {}) });
    const body = await get<{ items?: WireAuditEvent[]; next_page_token?: string }>(
      `/admin/audit-events?${query}`,
    );
    for (const e of body.items ?? []) links.push(linkOf(e));
    token = body.next_page_token ?? "";
    if (!token) break;
  }
  const after = await get<WireCheckpoints>("/admin/audit-checkpoints?limit=10000");
  // A key is known by the id its own bytes give (RFC 7638), never by the id the server claims.
  const trusted = (after.keys ?? [])
    .flatMap((k) => publicKeysFromPem(k.public_key_pem))
    .filter((k) => pinnedKeyIds.length === 0 || pinnedKeyIds.includes(k.publicKeyId));
  const v = await verifyTrail(
    links,
    {
      before: (before.items ?? []).map(checkpointOf),
      after: (after.items ?? []).map(checkpointOf),
    },
    trusted,
  );
  return {
    rows: v.rows,
    headHash: links.at(-1)?.hash,
    anchoredSeq: v.anchoredSeq,
    checkpoints: v.checkpoints,
    untrustedCheckpoints: v.untrustedCheckpoints,
    checkpointStore: after.store ?? "",
    broken: v.broken,
  };
}

function checkpointOf(c: WireCheckpoint): SignedCheckpoint {
  return {
    payload: {
      format: c.format as SignedCheckpoint["payload"]["format"],
      seq: Number(c.seq ?? 0),
      head_hash: c.head_hash,
      time: c.time,
      key_id: c.key_id,
    },
    signature: c.signature,
  };
}

function linkOf(e: WireAuditEvent): ChainLink {
  return {
    seq: Number(e.seq),
    id: e.id,
    // The API may drop a zero fraction; the hash covers the millisecond form.
    created_at: new Date(e.created_at).toISOString(),
    service: e.service,
    event_type: e.event_type ?? "",
    outcome: e.outcome,
    resource: e.resource,
    actor_user_id: e.actor_user_id ?? "",
    actor_type: e.actor?.actor_type ?? "",
    user_id: e.user_id ?? "",
    request_id: e.request_id,
    trace_id: e.trace_id,
    details: e.details ?? {},
    prev_hash: e.prev_hash,
    hash: e.hash,
    hash_format: e.hash_format === 1 ? 1 : 2,
  };
}
