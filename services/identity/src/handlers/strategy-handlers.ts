import { create, type JsonObject } from "@bufbuild/protobuf";
import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { Kysely, Transaction } from "kysely";
import {
  MembershipChangeSchema,
  TenancyStrategy,
  TenancyStrategyPlanSchema,
  type MigrateTenancyStrategyRequest,
  type TenancyService,
} from "@svc/gen/svc/identity/v1/identity_pb.js";
import { Code, invalidField, svcError } from "@svc/lib/errors";
import {
  planMigration,
  TENANCY_STRATEGIES,
  type MembershipChangeRow,
  type MigrationPlan,
  type TenancyStrategyName,
} from "../domain/tenancy-strategy.js";
import type { IdentityDatabase } from "../store/identity.table.js";
import { pendingInviteCount, revokePendingInvites } from "../store/invite.repository.js";
import * as store from "../store/strategy.repository.js";
import { auditInTransaction, callerSubject } from "./identity-audit.js";

const nameOf = (s: TenancyStrategy) => TenancyStrategy[s]!.toLowerCase() as TenancyStrategyName;
const enumOf = (s: string) =>
  TenancyStrategy[s.toUpperCase() as keyof typeof TenancyStrategy] as TenancyStrategy;

/**
 * The admin tenancy-strategy migration: a dry run that shows the memberships a move adds and
 * removes, and the move itself (step-up), which recomputes the same plan under the org's row
 * lock and applies it with the new strategy and its audit row in one transaction.
 */
export function createStrategyHandlers(deps: {
  db: Kysely<IdentityDatabase>;
  orgOrNotFound: (orgId: string) => Promise<{ id: string }>;
  now?: () => Date;
}): Pick<
  ServiceImpl<typeof TenancyService>,
  "planTenancyStrategyMigration" | "migrateTenancyStrategy"
> {
  const { db, orgOrNotFound } = deps;
  const now = deps.now ?? (() => new Date());

  function targetOf(req: MigrateTenancyStrategyRequest): TenancyStrategyName {
    const to = TenancyStrategy[req.strategy] ? nameOf(req.strategy) : undefined;
    if (!to || !TENANCY_STRATEGIES.includes(to))
      throw invalidField(
        "strategy",
        `strategy is required: one of ${TENANCY_STRATEGIES.join(", ")}`,
      );
    return to;
  }

  async function planIn(
    trx: Transaction<IdentityDatabase>,
    orgId: string,
    from: TenancyStrategyName,
    to: TenancyStrategyName,
  ) {
    return planMigration(from, to, {
      inviteGrants: await store.grantsFromSource(trx, orgId, "invite"),
      groupGrants: await store.grantsFromSource(trx, orgId, "idp_group"),
      groupWanted: await store.grantsOfReportedGroups(trx, orgId),
      pendingInvites: await pendingInviteCount(trx, orgId, now()),
    });
  }

  async function migrate(req: MigrateTenancyStrategyRequest, ctx: HandlerContext, apply: boolean) {
    const to = targetOf(req);
    const org = await orgOrNotFound(req.orgId);
    const { from, plan } = await db.transaction().execute(async (trx) => {
      const locked = await store.orgForUpdate(trx, org.id);
      const from = locked!.tenancy_strategy as TenancyStrategyName;
      if (from === to && apply)
        throw svcError(
          Code.AlreadyExists,
          "tenancy_strategy_unchanged",
          `organization ${org.id} is already ${to}; nothing to migrate`,
          { org_id: org.id, tenancy_strategy: to },
        );
      const plan = await planIn(trx, org.id, from, to);
      if (apply) {
        await store.applyMembershipChanges(trx, org.id, plan);
        if (plan.revokeInvites)
          plan.invitesRevoked = await revokePendingInvites(trx, org.id, callerSubject(ctx), now());
        await store.setStrategy(trx, org.id, to);
        await auditInTransaction(trx, ctx, {
          action: "identity.tenancy_strategy.migrated",
          outcome: "succeeded",
          resource: `org/${org.id}`,
          details: auditDetails(from, to, plan),
        });
      }
      return { from, plan };
    });
    return create(TenancyStrategyPlanSchema, {
      orgId: org.id,
      from: enumOf(from),
      to: enumOf(to),
      added: plan.added.map(changeOut),
      removed: plan.removed.map(changeOut),
      invitesRevoked: plan.invitesRevoked,
      applied: apply,
    });
  }

  return {
    planTenancyStrategyMigration: (req, ctx) => migrate(req, ctx, false),
    migrateTenancyStrategy: (req, ctx) => migrate(req, ctx, true),
  };
}

const changeOut = (m: MembershipChangeRow) =>
  create(MembershipChangeSchema, {
    subject: m.subject,
    scopeKind: m.scope_kind,
    scopeId: m.scope_id,
    role: m.role,
    source: m.source,
    sourceGroup: m.source_group,
  });

function auditDetails(from: string, to: string, plan: MigrationPlan): JsonObject {
  const row = (m: MembershipChangeRow) => ({
    user_id: m.user_id,
    scope_kind: m.scope_kind,
    scope_id: m.scope_id,
    role: m.role,
    source: m.source,
    source_group: m.source_group,
  });
  return {
    from,
    to,
    added: plan.added.map(row),
    removed: plan.removed.map(row),
    invites_revoked: plan.invitesRevoked,
  };
}
