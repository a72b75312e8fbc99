import type { Kysely, Transaction } from "kysely";
import { LIVE_SESSION_STATES } from "../domain/deployment-status.js";
import type { BotsDatabase } from "./bots.table.js";

type Db = Kysely<BotsDatabase> | Transaction<BotsDatabase>;

/** Records an approved allocation's capital per target; a redelivered approval changes nothing. */
export async function applyAllocation(
  trx: Transaction<BotsDatabase>,
  requestId: string,
  capital: Record<string, number>,
  limits: Record<string, unknown>,
): Promise<number> {
  const rows = Object.entries(capital).map(([target, amount]) => ({
    request_id: requestId,
    target,
    capital: amount,
    limits: JSON.stringify(limits),
    active: true,
  }));
  if (rows.length === 0) return 0;
  const inserted = await trx
    .insertInto("allocations")
    .values(rows)
    .onConflict((oc) => oc.columns(["request_id", "target"]).doNothing())
    .returning("target")
    .execute();
  return inserted.length;
}

export async function revokeAllocation(
  trx: Transaction<BotsDatabase>,
  requestId: string,
): Promise<boolean> {
  const r = await trx
    .updateTable("allocations")
    .set({ active: false, revoked_at: new Date() })
    .where("request_id", "=", requestId)
    .where("active", "=", true)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/**
 * The capital a new session of this bot trades: the newest active allocation naming the bot
 * itself, else the newest naming its fleet; none when neither has one.
 */
export async function capitalFor(
  db: Db,
  slug: string,
  fleet: string | null,
): Promise<{ requestId: string; capital: number } | undefined> {
  const rows = await db
    .selectFrom("allocations")
    .select(["request_id", "target", "capital"])
    .where("active", "=", true)
    .where("target", "in", fleet ? [slug, fleet] : [slug])
    .orderBy("applied_at", "desc")
    .execute();
  const pick = rows.find((r) => r.target === slug) ?? rows[0];
  return pick ? { requestId: pick.request_id, capital: pick.capital } : undefined;
}

/** The bots whose live paper sessions trade an allocation's capital (to halt them on revocation). */
export async function botsTradingAllocation(db: Db, requestId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("bot_deployments")
    .select("bot_id")
    .distinct()
    .where("target", "=", "paper")
    .where("status", "in", LIVE_SESSION_STATES)
    .where((eb) =>
      eb(eb.ref("request", "->>").key("allocation_request_id" as never), "=", requestId),
    )
    .execute();
  return rows.map((r) => r.bot_id);
}
