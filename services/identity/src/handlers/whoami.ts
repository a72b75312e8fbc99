import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { HandlerContext } from "@connectrpc/connect";
import { WhoAmIResponseSchema, type WhoAmIResponse } from "@svc/gen/svc/identity/v1/identity_pb.js";
import { principalOf } from "@svc/lib/auth";

/**
 * The current principal as the token (or the local provider) presents it. Memberships list the
 * membership rows of the identity schema; none exist until the sync routes are built, so the
 * array is empty rather than invented from claims.
 */
export function whoAmI(_req: unknown, ctx: HandlerContext): WhoAmIResponse {
  const p = principalOf(ctx);
  return create(WhoAmIResponseSchema, {
    sub: p.sub,
    actorType: p.actorType,
    onBehalfOfSub: p.onBehalfOfSub ?? "",
    orgId: p.orgId ?? "",
    workspaceId: p.workspaceId ?? "",
    memberships: [],
    roles: p.roles,
    scopes: p.scopes,
    acr: p.acr ?? "",
    amr: p.amr,
    authTime: p.authTime !== undefined ? timestampFromMs(p.authTime * 1000) : undefined,
  });
}
