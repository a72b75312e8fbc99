import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import { FleetRiskLimitsRecordSchema, type BotsService } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { auditOriginOf, recordAudit } from "@svc/lib/audit";
import { principalOf } from "@svc/lib/auth";
import { changedSettings, enqueueControlChange } from "@svc/lib/contracts";
import { Code, svcError } from "@svc/lib/errors";
import type { Logger } from "@svc/lib/telemetry";
import type { SessionControl } from "../runtime/session-control.js";
import { findBot } from "../store/bots.repository.js";
import type { BotsDatabase } from "../store/bots.table.js";
import * as risk from "../store/risk.repository.js";
import { botNotFound } from "./bot-errors.js";
import { BOTS_SCHEMA } from "./bots-handlers.js";
import { fleetLimitsToProto, riskStateToProto } from "./risk-mapping.js";

type Handlers = Pick<
  ServiceImpl<typeof BotsService>,
  "reEnableBot" | "setFleetRiskLimits" | "getFleetRiskLimits"
>;

/**
 * The risk controls' routes: re-enabling a bot a throttle breach disabled (a named person, with
 * step-up, recorded and audited in one transaction), and the limits a fleet's bots share.
 */
export function createRiskHandlers(deps: {
  db: Kysely<BotsDatabase>;
  sessions: SessionControl;
  log: Logger;
}): Handlers {
  const { db } = deps;
  return {
    async reEnableBot(req, ctx) {
      const bot = await findBot(db, req.botRef);
      if (!bot) throw botNotFound(req.botRef);
      const by = principalOf(ctx).sub;
      const row = await db.transaction().execute(async (trx) => {
        // The row lock queues a racing re-enable behind this one; it then finds nothing to do.
        const state = await risk.lockRiskState(trx, bot.id);
        if (!state?.disabled)
          throw svcError(
            Code.Aborted,
            "risk_not_disabled",
            `bot "${bot.slug}" is not disabled by a risk control; there is nothing to re-enable`,
            {
              re_enabled_by: state?.re_enabled_by ?? "",
              re_enabled_at: state?.re_enabled_at
                ? new Date(state.re_enabled_at).toISOString()
                : "",
            },
          );
        const updated = await risk.reEnable(trx, bot.id, by, req.reason, new Date());
        await recordAudit(trx, BOTS_SCHEMA, "bots", auditOriginOf(ctx), {
          action: "bots.risk.re_enable",
          outcome: "succeeded",
          resource: `bot/${bot.slug}`,
          details: {
            control: state.control,
            limit: state.limit_value,
            value: state.observed_value,
            task_id: state.task_id,
            disabled_at: new Date(state.disabled_at).toISOString(),
            reason: req.reason,
          },
        });
        return updated!;
      });
      // The state is the truth; a session that misses this word reads it at its next pick-up.
      await deps.sessions
        .syncRisk(bot.id)
        .catch((err) => deps.log.warn({ err, bot_id: bot.id }, "risk sync after re-enable failed"));
      return riskStateToProto(row);
    },

    async setFleetRiskLimits(req, ctx) {
      const by = principalOf(ctx).sub;
      const limits = {
        capitalLimit: req.limits!.capitalLimit,
        creditLimit: req.limits!.creditLimit,
      };
      const row = await db.transaction().execute(async (trx) => {
        const previous = await risk.fleetLimitsOf(trx, req.fleet);
        const saved = await risk.setFleetLimits(trx, req.fleet, limits, by);
        // A fleet's limits are risk limits of each of its bots: a material control change.
        const changed = changedSettings(
          previous
            ? { capital_limit: previous.capital_limit, credit_limit: previous.credit_limit }
            : {},
          { capital_limit: saved.capital_limit, credit_limit: saved.credit_limit },
        );
        if (changed)
          await enqueueControlChange(trx, BOTS_SCHEMA, {
            kind: "risk_limits",
            fleet: req.fleet,
            actor: by,
            changedAt: saved.updated_at,
            ...changed,
          });
        await recordAudit(trx, BOTS_SCHEMA, "bots", auditOriginOf(ctx), {
          action: "bots.fleet.risk_limits.set",
          outcome: "succeeded",
          resource: `fleet/${req.fleet}`,
          details: { capital_limit: limits.capitalLimit, credit_limit: limits.creditLimit },
        });
        return saved;
      });
      return fleetLimitsToProto(row);
    },

    async getFleetRiskLimits(req) {
      const row = await risk.fleetLimitsOf(db, req.fleet);
      // A fleet without a row has no shared limit: zeros, the same as a limit left off.
      return row
        ? fleetLimitsToProto(row)
        : create(FleetRiskLimitsRecordSchema, { fleet: req.fleet, limits: {} });
    },
  };
}
