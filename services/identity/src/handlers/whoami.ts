import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { HandlerContext } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  MembershipSchema,
  WhoAmIResponseSchema,
  type WhoAmIResponse,
} from "@svc/gen/svc/identity/v1/identity_pb.js";
import { principalOf } from "@svc/lib/auth";
import type { IdentityDatabase } from "../store/identity.table.js";
import { membershipsOfSubject } from "../store/tenancy.repository.js";

/**
 * The current principal as the token (or the local provider) presents it, with the membership
 * rows the identity schema holds for the person (for an agent: the person it acts for).
 */
export function createWhoAmI(db: Kysely<IdentityDatabase>) {
  return async function whoAmI(_req: unknown, ctx: HandlerContext): Promise<WhoAmIResponse> {
    const p = principalOf(ctx);
    const rows = await membershipsOfSubject(db, p.onBehalfOfSub ?? p.sub);
    const seen = new Set<string>();
    const memberships = rows.flatMap((m) => {
      const key = `${m.scope_kind}\u0000${m.scope_id}\u0000${m.role}`;
      if (seen.has(key)) return [];
      seen.add(key);
      return [
        create(MembershipSchema, { scopeKind: m.scope_kind, scopeId: m.scope_id, role: m.role }),
      ];
    });
    return create(WhoAmIResponseSchema, {
      sub: p.sub,
      actorType: p.actorType,
      onBehalfOfSub: p.onBehalfOfSub ?? "",
      orgId: p.orgId ?? "",
      workspaceId: p.workspaceId ?? "",
      memberships,
      roles: p.roles,
      scopes: p.scopes,
      acr: p.acr ?? "",
      amr: p.amr,
      authTime: p.authTime !== undefined ? timestampFromMs(p.authTime * 1000) : undefined,
    });
  };
}
