import { firstBrokenLink, type BrokenLink, type ChainLink } from "@svc/lib/audit";

/** What `svc audit verify` found: how much of the chain it read, and where it breaks, if it does. */
export interface AuditVerification {
  rows: number;
  headHash?: string;
  broken?: BrokenLink;
}

interface WireAuditEvent {
  seq: string | number;
  id: string;
  occurred_at: string;
  service: string;
  action: string;
  outcome: string;
  resource: string;
  actor: ChainLink["actor"] | null;
  request_id: string;
  trace_id: string;
  details: ChainLink["details"] | null;
  prev_hash: string;
  hash: string;
}

const EMPTY_ACTOR = {
  subject: "",
  actor_type: "",
  internal_user_id: "",
  agent_subject: "",
  on_behalf_of: "",
};

/**
 * Reads the whole audit trail through `GET /admin/audit-events`, page by page in chain order, and
 * recomputes every link: the first row whose hash, prev_hash or place does not hold is named.
 * It needs no secret and trusts nothing the server says about the chain but the rows themselves.
 */
export async function verifyAuditTrail(
  base: string,
  headers: Record<string, string>,
  timeoutMs = 10_000,
): Promise<AuditVerification> {
  const links: ChainLink[] = [];
  for (let token = ""; ;) {
    const query = new URLSearchParams({ limit: "1000", ...(token ? { page_token: token } : {}) });
    const res = await fetch(`${base}/admin/audit-events?${query}`, {
      headers,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const body = (await res.json()) as {
      items?: WireAuditEvent[];
      next_page_token?: string;
      error?: { code: string; message: string };
    };
    if (!res.ok) throw new Error(`${res.status} ${body.error?.code}: ${body.error?.message}`);
    for (const e of body.items ?? []) links.push(linkOf(e));
    token = body.next_page_token ?? "";
    if (!token) break;
  }
  return { rows: links.length, headHash: links.at(-1)?.hash, broken: firstBrokenLink(links) };
}

function linkOf(e: WireAuditEvent): ChainLink {
  return {
    seq: Number(e.seq),
    id: e.id,
    // The API may drop a zero fraction; the hash covers the millisecond form.
    occurred_at: new Date(e.occurred_at).toISOString(),
    service: e.service,
    action: e.action,
    outcome: e.outcome,
    resource: e.resource,
    actor: { ...EMPTY_ACTOR, ...(e.actor ?? {}) },
    request_id: e.request_id,
    trace_id: e.trace_id,
    details: e.details ?? {},
    prev_hash: e.prev_hash,
    hash: e.hash,
  };
}
