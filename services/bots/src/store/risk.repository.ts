import type { Kysely, Transaction } from "kysely";
import type { BotRiskStateRow, BotsDatabase, FleetRiskLimitsRow } from "./bots.table.js";

type Db = Kysely<BotsDatabase> | Transaction<BotsDatabase>;

/** What disabled a bot, as the runner that tripped records it. */
export interface Disablement {
  control: string;
  reason: string;
  limit: number;
  value: number;
  taskId: string;
  at: Date;
}

export function riskStateOf(db: Db, botId: string): Promise<BotRiskStateRow | undefined> {
  return db.selectFrom("bot_risk_state").selectAll().where("bot_id", "=", botId).executeTakeFirst();
}

/** Marks the bot disabled; a later breach replaces what an earlier one (re-enabled since) said. */
export async function recordDisabled(db: Db, botId: string, d: Disablement): Promise<void> {
  const values = {
    disabled: true,
    control: d.control,
    reason: d.reason,
    limit_value: d.limit,
    observed_value: d.value,
    task_id: d.taskId,
    disabled_at: d.at,
  };
  await db
    .insertInto("bot_risk_state")
    .values({ bot_id: botId, ...values })
    .onConflict((oc) => oc.column("bot_id").doUpdateSet(values))
    .execute();
}

/** Locks the bot's risk state for the rest of the transaction: racing re-enables queue here. */
export function lockRiskState(
  trx: Transaction<BotsDatabase>,
  botId: string,
): Promise<BotRiskStateRow | undefined> {
  return trx
    .selectFrom("bot_risk_state")
    .selectAll()
    .where("bot_id", "=", botId)
    .forUpdate()
    .executeTakeFirst();
}

/** Re-enables a disabled bot; returns the row, or undefined when it was not disabled (anymore). */
export function reEnable(
  trx: Transaction<BotsDatabase>,
  botId: string,
  by: string,
  reason: string,
  at: Date,
): Promise<BotRiskStateRow | undefined> {
  return trx
    .updateTable("bot_risk_state")
    .set({ disabled: false, re_enabled_by: by, re_enabled_at: at, re_enable_reason: reason })
    .where("bot_id", "=", botId)
    .where("disabled", "=", true)
    .returningAll()
    .executeTakeFirst();
}

export function fleetLimitsOf(
  db: Db,
  fleet: string | null,
): Promise<FleetRiskLimitsRow | undefined> {
  if (!fleet) return Promise.resolve(undefined);
  return db
    .selectFrom("fleet_risk_limits")
    .selectAll()
    .where("fleet", "=", fleet)
    .executeTakeFirst();
}

export function setFleetLimits(
  db: Db,
  fleet: string,
  limits: { capitalLimit: number; creditLimit: number },
  by: string,
): Promise<FleetRiskLimitsRow> {
  const values = {
    capital_limit: limits.capitalLimit,
    credit_limit: limits.creditLimit,
    updated_by: by,
    updated_at: new Date(),
  };
  return db
    .insertInto("fleet_risk_limits")
    .values({ fleet, ...values })
    .onConflict((oc) => oc.column("fleet").doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow();
}
