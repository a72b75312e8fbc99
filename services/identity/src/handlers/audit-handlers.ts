import { create } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  AuditEventSchema,
  ListAuditEventsResponseSchema,
  type AuditService,
} from "@svc/gen/svc/identity/v1/identity_pb.js";
import type { AuditDelegation } from "@svc/lib/audit";
import { invalidField } from "@svc/lib/errors";
import { chainLinkOf, listAuditEvents } from "../store/audit-trail.repository.js";
import type { IdentityDatabase } from "../store/identity.table.js";

const DEFAULT_LIMIT = 100;

/** GET /admin/audit-events: the chain, filtered, in seq order, with every field its hash covers. */
export function createAuditHandlers(
  db: Kysely<IdentityDatabase>,
): Pick<ServiceImpl<typeof AuditService>, "listAuditEvents"> {
  return {
    async listAuditEvents(req) {
      const afterSeq = req.pageToken ? seqOfToken(req.pageToken) : 0;
      const limit = req.limit || DEFAULT_LIMIT;
      const rows = await listAuditEvents(
        db,
        {
          actor: req.actor || undefined,
          action: req.action || undefined,
          resource: req.resource || undefined,
          since: req.since ? timestampDate(req.since) : undefined,
          until: req.until ? timestampDate(req.until) : undefined,
        },
        afterSeq,
        limit,
      );
      const page = rows.slice(0, limit);
      return create(ListAuditEventsResponseSchema, {
        items: page.map((r) => {
          const link = chainLinkOf(r);
          const delegation = (link.details.delegation ?? {}) as Partial<AuditDelegation>;
          const createdAt = timestampFromDate(r.created_at);
          return create(AuditEventSchema, {
            seq: BigInt(link.seq),
            id: link.id,
            createdAt,
            occurredAt: createdAt,
            service: link.service,
            eventType: link.event_type,
            action: link.event_type,
            outcome: link.outcome,
            resource: link.resource,
            actorUserId: link.actor_user_id,
            userId: link.user_id,
            actor: {
              subject: link.actor_user_id,
              actorType: link.actor_type,
              internalUserId: link.user_id,
              agentSubject: delegation.agent_subject ?? "",
              onBehalfOf: delegation.on_behalf_of_sub ?? "",
            },
            requestId: link.request_id,
            traceId: link.trace_id,
            details: link.details,
            prevHash: link.prev_hash,
            hash: link.hash,
            hashFormat: link.hash_format,
            recordedAt: timestampFromDate(r.recorded_at),
          });
        }),
        nextPageToken: rows.length > limit ? tokenOf(Number(page.at(-1)!.seq)) : "",
      });
    },
  };
}

function tokenOf(seq: number): string {
  return Buffer.from(`seq:${seq}`).toString("base64url");
}

function seqOfToken(token: string): number {
  const m = /^seq:(\d{1,15})$/.exec(Buffer.from(token, "base64url").toString("utf8"));
  if (!m)
    throw invalidField(
      "page_token",
      "page_token is not one this API gave out: pass the next_page_token of the previous page",
    );
  return Number(m[1]);
}
