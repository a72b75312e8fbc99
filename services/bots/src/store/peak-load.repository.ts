import { sql, type Kysely } from "kysely";
import type { BotsDatabase } from "./bots.table.js";

/** The order messages of a session's history: what a venue would have received from the bot. */
export const ORDER_MESSAGE_TYPES = ["order_placed", "order_cancelled", "order_rejected"] as const;

/**
 * The most order messages the bot's recorded sessions sent within one wall-clock second, or 0
 * when it never sent one (no paper session yet). A cancel for want of volume (its reason starts
 * with `volume:`, see SimulatedBroker) is the venue's, not a message the bot sent.
 */
export async function peakMessagesPerSecond(
  db: Kysely<BotsDatabase>,
  botId: string,
): Promise<number> {
  const row = await db
    .selectFrom("bot_events")
    .select(sql<number>`count(*)::int`.as("n"))
    .where("bot_id", "=", botId)
    .where("type", "in", ORDER_MESSAGE_TYPES)
    .where(sql<boolean>`not (type = 'order_cancelled' and data->>'reason' like 'volume:%')`)
    .groupBy(sql`date_trunc('second', occurred_at)`)
    .orderBy("n", "desc")
    .limit(1)
    .executeTakeFirst();
  return row?.n ?? 0;
}
