import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  AcceptOrgInviteResponseSchema,
  IssueOrgInviteResponseSchema,
  ListOrgInvitesResponseSchema,
  MembershipSchema,
  OrgInviteSchema,
  type TenancyService,
} from "@svc/gen/svc/identity/v1/identity_pb.js";
import {
  INVITE_DEFAULT_ROLE,
  INVITE_TTL_DEFAULT_S,
  inviteStatus,
  inviteTokenHash,
  mintInviteToken,
} from "../domain/org-invite.js";
import { invitesGrant, type TenancyStrategyName } from "../domain/tenancy-strategy.js";
import type { IdentityDatabase, OrgInviteRow } from "../store/identity.table.js";
import * as invites from "../store/invite.repository.js";
import { provisionUser } from "../store/tenancy.repository.js";
import { auditInTransaction, callerSubject } from "./identity-audit.js";
import { invitesDisabled, inviteUnusable } from "./invite-errors.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type InviteRpcs = "issueOrgInvite" | "listOrgInvites" | "revokeOrgInvite" | "acceptOrgInvite";

/**
 * Organization invites: issued and revoked by an admin with step-up, accepted by the person
 * holding the token. Each change commits with its audit row; the token is answered once and only
 * its hash is stored.
 */
export function createInviteHandlers(deps: {
  db: Kysely<IdentityDatabase>;
  orgOrNotFound: (orgId: string) => Promise<{ id: string }>;
  now?: () => Date;
}): Pick<ServiceImpl<typeof TenancyService>, InviteRpcs> {
  const { db, orgOrNotFound } = deps;
  const now = deps.now ?? (() => new Date());

  const inviteOut = (r: OrgInviteRow, at: Date) =>
    create(OrgInviteSchema, {
      id: r.id,
      orgId: r.org_id,
      role: r.role,
      email: r.email,
      status: inviteStatus(r, at),
      issuedBy: r.issued_by,
      createdAt: timestampFromDate(r.created_at),
      expiresAt: timestampFromDate(r.expires_at),
      acceptedBy: r.accepted_by,
      acceptedAt: r.accepted_at ? timestampFromDate(r.accepted_at) : undefined,
      revokedBy: r.revoked_by,
      revokedAt: r.revoked_at ? timestampFromDate(r.revoked_at) : undefined,
    });

  /** The org locked against a strategy migration; refuses when invites do not grant there. */
  async function lockInvitingOrg(trx: Parameters<typeof invites.orgForShare>[0], orgId: string) {
    const org = await invites.orgForShare(trx, orgId);
    if (org && !invitesGrant(org.tenancy_strategy as TenancyStrategyName))
      throw invitesDisabled(orgId);
  }

  return {
    async issueOrgInvite(req, ctx) {
      const org = await orgOrNotFound(req.orgId);
      const at = now();
      const ttl = Number(req.ttlSeconds) || INVITE_TTL_DEFAULT_S;
      const { token, hash } = mintInviteToken();
      const row = await db.transaction().execute(async (trx) => {
        await lockInvitingOrg(trx, org.id);
        const saved = await invites.insertInvite(trx, {
          org_id: org.id,
          token_hash: hash,
          role: req.role || INVITE_DEFAULT_ROLE,
          email: req.email.trim(),
          issued_by: callerSubject(ctx),
          expires_at: new Date(at.getTime() + ttl * 1000),
        });
        await auditInTransaction(trx, ctx, {
          action: "identity.org_invite.issued",
          outcome: "succeeded",
          resource: `org_invite/${saved.id}`,
          details: {
            org_id: org.id,
            role: saved.role,
            email: saved.email,
            expires_at: saved.expires_at.toISOString(),
          },
        });
        return saved;
      });
      return create(IssueOrgInviteResponseSchema, { invite: inviteOut(row, at), token });
    },

    async listOrgInvites(req) {
      const org = await orgOrNotFound(req.orgId);
      const at = now();
      const rows = await invites.listInvites(db, org.id);
      return create(ListOrgInvitesResponseSchema, { items: rows.map((r) => inviteOut(r, at)) });
    },

    async revokeOrgInvite(req, ctx) {
      const org = await orgOrNotFound(req.orgId);
      const at = now();
      const by = callerSubject(ctx);
      const row = await db.transaction().execute(async (trx) => {
        const closed = UUID.test(req.inviteId)
          ? await invites.closePendingInvite(
              trx,
              { orgId: org.id, id: req.inviteId },
              { revoked_by: by, revoked_at: at },
              at,
            )
          : undefined;
        if (!closed) {
          const found = UUID.test(req.inviteId)
            ? await invites.inviteById(trx, org.id, req.inviteId)
            : undefined;
          throw inviteUnusable(found, `"${req.inviteId}"`, at);
        }
        await auditInTransaction(trx, ctx, {
          action: "identity.org_invite.revoked",
          outcome: "succeeded",
          resource: `org_invite/${closed.id}`,
          details: { org_id: org.id, role: closed.role, email: closed.email },
        });
        return closed;
      });
      return inviteOut(row, at);
    },

    async acceptOrgInvite(req, ctx) {
      const org = await orgOrNotFound(req.orgId);
      const at = now();
      const subject = callerSubject(ctx);
      const hash = inviteTokenHash(req.token);
      const row = await db.transaction().execute(async (trx) => {
        await lockInvitingOrg(trx, org.id);
        const accepted = await invites.closePendingInvite(
          trx,
          { orgId: org.id, tokenHash: hash },
          { accepted_by: subject, accepted_at: at },
          at,
        );
        if (!accepted)
          throw inviteUnusable(
            await invites.inviteByTokenHash(trx, org.id, hash),
            "with that token",
            at,
          );
        const user = await provisionUser(trx, subject);
        await invites.grantInviteMembership(trx, {
          userId: user.id,
          orgId: org.id,
          role: accepted.role,
        });
        await auditInTransaction(trx, ctx, {
          action: "identity.org_invite.accepted",
          outcome: "succeeded",
          resource: `org_invite/${accepted.id}`,
          details: { org_id: org.id, role: accepted.role, user_id: user.id },
        });
        return accepted;
      });
      return create(AcceptOrgInviteResponseSchema, {
        invite: inviteOut(row, at),
        membership: create(MembershipSchema, {
          scopeKind: "org",
          scopeId: org.id,
          role: row.role,
        }),
      });
    },
  };
}
