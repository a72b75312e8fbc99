import { create, type JsonObject } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  ConnectionKind,
  IdpGroupMappingSchema,
  IdpSyncGroupsResponseSchema,
  ListIdpGroupMappingsResponseSchema,
  ListMembershipsOfResponseSchema,
  MembershipSchema,
  OidcSyncResponseSchema,
  DeleteIdpGroupMappingResponseSchema,
  type IdentityService,
  type TenancyService,
} from "@svc/gen/svc/identity/v1/identity_pb.js";
import { auditOriginOf } from "@svc/lib/audit";
import { isUniqueViolation } from "@svc/lib/db";
import { Code, invalidField, svcError } from "@svc/lib/errors";
import { claimsFromMemberships, grantChanges, normalizeGroups } from "../domain/group-sync.js";
import { groupsGrant, type TenancyStrategyName } from "../domain/tenancy-strategy.js";
import { orgForShare } from "../store/invite.repository.js";
import { recordReportedGroups } from "../store/strategy.repository.js";
import { createInviteHandlers } from "./invite-handlers.js";
import { createStrategyHandlers } from "./strategy-handlers.js";
import type { GroupMappingRow, IdentityDatabase } from "../store/identity.table.js";
import * as repo from "../store/tenancy.repository.js";
import { auditInTransaction } from "./identity-audit.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** ConnectionKind.GENERIC_SAML -> "generic_saml", the spec's spelling. */
export function connectionKindName(k: ConnectionKind): string {
  return ConnectionKind[k]!.toLowerCase();
}

/**
 * The post-login sync routes (machine tokens from the provider's hook) and the org's group
 * mappings (admin:tenant). Every change runs in one transaction with its audit row.
 */
export function createTenancyHandlers(db: Kysely<IdentityDatabase>): {
  identity: Pick<
    ServiceImpl<typeof IdentityService>,
    "oidcSync" | "idpSyncGroups" | "listMembershipsOf"
  >;
  tenancy: ServiceImpl<typeof TenancyService>;
} {
  const audit = auditInTransaction;

  async function orgOrNotFound(orgId: string) {
    const org = UUID.test(orgId) ? await repo.findOrg(db, orgId) : undefined;
    if (!org)
      throw svcError(Code.NotFound, "org_not_found", `no organization with id "${orgId}"`, {
        org_id: orgId,
      });
    return org;
  }

  const mappingOut = (m: GroupMappingRow) =>
    create(IdpGroupMappingSchema, {
      id: m.id,
      orgId: m.org_id,
      connectionKind: ConnectionKind[
        m.connection_kind.toUpperCase() as keyof typeof ConnectionKind
      ] as ConnectionKind,
      externalGroup: m.external_group,
      scopeKind: m.scope_kind,
      scopeId: m.scope_id,
      role: m.role,
    });

  return {
    identity: {
      async listMembershipsOf(req) {
        const rows = await repo.membershipsOfSubject(db, req.subject);
        return create(ListMembershipsOfResponseSchema, {
          memberships: rows.map((m) =>
            create(MembershipSchema, {
              scopeKind: m.scope_kind,
              scopeId: m.scope_id,
              role: m.role,
            }),
          ),
        });
      },

      /** Idempotent: the same login twice provisions nothing new and answers the same claims. */
      async oidcSync(req) {
        const claims = await db.transaction().execute(async (trx) => {
          const user = await repo.provisionUser(trx, req.userId, req.email);
          const org = req.organizationId
            ? await repo.provisionOrg(trx, req.organizationId, req.organizationName)
            : undefined;
          if (org) await repo.ensureOrgMembership(trx, user.id, org.id);
          const memberships = await repo.membershipsOfUser(trx, user.id);
          return { userId: user.id, orgId: org?.id ?? "", ...claimsFromMemberships(memberships) };
        });
        return create(OidcSyncResponseSchema, {
          orgId: claims.orgId,
          teamId: claims.team_id,
          workspaceId: claims.workspace_id,
          projectId: claims.project_id,
          labId: claims.lab_id,
          roles: claims.roles,
          connection: req.requestedClaims?.connection ?? "",
          internalUserId: claims.userId,
        });
      },

      /**
       * Memberships follow the user's external groups, per active connection of that kind in the
       * org: granted by the org's mappings, removed for groups the user left. Nothing without an
       * active connection (or an org to look one up in).
       */
      async idpSyncGroups(req, ctx) {
        const kind = connectionKindName(req.connectionKind);
        const groups = normalizeGroups(req.externalGroups);
        const org = req.idpOrganizationId
          ? await repo.findOrgByExternalId(db, req.idpOrganizationId)
          : undefined;
        if (!org || !(await repo.hasActiveConnection(db, org.id, kind)))
          return create(IdpSyncGroupsResponseSchema, { noActiveConnection: true });
        const changes = await db.transaction().execute(async (trx) => {
          // The org before the user, as a strategy migration and an invite's acceptance lock
          // them, so none of the three waits on another in a circle.
          const strategy = (await orgForShare(trx, org.id))?.tenancy_strategy;
          const user = await repo.provisionUser(trx, req.userId);
          const at = { userId: user.id, orgId: org.id, connectionKind: kind };
          // Kept whatever the strategy, so a later move to group mapping knows what they grant.
          await recordReportedGroups(trx, { ...at, groups });
          const held = await repo.groupGrantsOf(trx, user.id, org.id, kind);
          const wanted = groupsGrant(strategy as TenancyStrategyName)
            ? await repo.grantsForGroups(trx, org.id, kind, groups)
            : [];
          const diff = grantChanges(held, wanted);
          await repo.applyGrantChanges(trx, at, diff);
          if (diff.add.length + diff.remove.length > 0)
            await audit(trx, ctx, {
              action: "identity.memberships.synced",
              outcome: "succeeded",
              resource: `user/${user.id}`,
              details: {
                subject: req.userId,
                org_id: org.id,
                connection_kind: kind,
                granted: diff.add as unknown as JsonObject[],
                removed: diff.remove as unknown as JsonObject[],
              },
            });
          return diff;
        });
        return create(IdpSyncGroupsResponseSchema, {
          membershipsUpserted: changes.add.length,
          membershipsRemoved: changes.remove.length,
        });
      },
    },

    tenancy: {
      ...createInviteHandlers({ db, orgOrNotFound }),
      ...createStrategyHandlers({ db, orgOrNotFound }),

      async listIdpGroupMappings(req) {
        const org = await orgOrNotFound(req.orgId);
        return create(ListIdpGroupMappingsResponseSchema, {
          items: (await repo.listMappings(db, org.id)).map(mappingOut),
        });
      },

      async createIdpGroupMapping(req, ctx) {
        const org = await orgOrNotFound(req.orgId);
        const m = req.mapping!;
        if (m.connectionKind === ConnectionKind.UNSPECIFIED)
          throw invalidField(
            "mapping.connection_kind",
            `connection_kind is required: one of ${Object.keys(ConnectionKind)
              .filter((k) => isNaN(Number(k)) && k !== "UNSPECIFIED")
              .map((k) => k.toLowerCase())
              .join(", ")}`,
          );
        const externalGroup = m.externalGroup.trim();
        if (!externalGroup)
          throw invalidField("mapping.external_group", "external_group must not be blank");
        try {
          const row = await db.transaction().execute(async (trx) => {
            const saved = await repo.insertMapping(trx, {
              org_id: org.id,
              connection_kind: connectionKindName(m.connectionKind),
              external_group: externalGroup,
              scope_kind: m.scopeKind,
              scope_id: m.scopeId,
              role: m.role,
              created_by: auditOriginOf(ctx).principal?.sub ?? "",
            });
            await audit(trx, ctx, {
              action: "idp_group_mapping_created",
              outcome: "succeeded",
              resource: `idp_group_mapping/${saved.id}`,
              details: mappingDetails(saved),
            });
            return saved;
          });
          return mappingOut(row);
        } catch (err) {
          if (isUniqueViolation(err))
            throw svcError(
              Code.AlreadyExists,
              "mapping_exists",
              `group "${externalGroup}" already maps to ${m.role} on ${m.scopeKind} ${m.scopeId} for this connection kind`,
              { external_group: externalGroup },
            );
          throw err;
        }
      },

      async deleteIdpGroupMapping(req, ctx) {
        const org = await orgOrNotFound(req.orgId);
        const deleted = UUID.test(req.mappingId)
          ? await db.transaction().execute(async (trx) => {
              const gone = await repo.deleteMapping(trx, org.id, req.mappingId);
              if (gone)
                await audit(trx, ctx, {
                  action: "idp_group_mapping_deleted",
                  outcome: "succeeded",
                  resource: `idp_group_mapping/${gone.id}`,
                  details: mappingDetails(gone),
                });
              return gone;
            })
          : undefined;
        if (!deleted)
          throw svcError(
            Code.NotFound,
            "mapping_not_found",
            `no group mapping "${req.mappingId}" in organization ${org.id}`,
            { mapping_id: req.mappingId },
          );
        return create(DeleteIdpGroupMappingResponseSchema, { deleted: true });
      },
    },
  };
}

function mappingDetails(m: GroupMappingRow): JsonObject {
  return {
    org_id: m.org_id,
    connection_kind: m.connection_kind,
    external_group: m.external_group,
    scope_kind: m.scope_kind,
    scope_id: m.scope_id,
    role: m.role,
  };
}
