import type { Kysely } from "kysely";
import type { BotSpec } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { riskLimitsFrom, type RiskLimits } from "../execution/risk-controls/index.js";
import type { BotsDatabase } from "../store/bots.table.js";
import { fleetLimitsOf } from "../store/risk.repository.js";

/** The limits a run of this spec trades under: the spec's own and its fleet's, as stored now. */
export async function riskLimitsOf(
  db: Kysely<BotsDatabase>,
  spec: BotSpec,
  fleet: string | null,
): Promise<RiskLimits> {
  const row = await fleetLimitsOf(db, fleet);
  return riskLimitsFrom(
    spec.risk,
    row && { capitalLimit: row.capital_limit, creditLimit: row.credit_limit },
  );
}
