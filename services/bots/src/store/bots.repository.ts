import { sql, type Kysely, type Transaction } from "kysely";
import type { BotRow, BotsDatabase, BotVersionRow, NewBotRow, BotRowUpdate } from "./bots.table.js";
import { keysetAfter, timestampKey } from "@svc/lib/paging";
import { isUuid } from "../domain/slug.js";

type Db = Kysely<BotsDatabase>;
type Trx = Transaction<BotsDatabase>;

/** Only SQL lives here: the bots and bot_versions tables of the bots schema. */
export function findBot(db: Db | Trx, ref: string): Promise<BotRow | undefined> {
  return db
    .selectFrom("bots")
    .selectAll()
    .where(isUuid(ref) ? "id" : "slug", "=", isUuid(ref) ? ref.toLowerCase() : ref)
    .executeTakeFirst();
}

/** Locks the bot row for the rest of the transaction: concurrent updates queue, never both win. */
export function lockBot(trx: Trx, ref: string): Promise<BotRow | undefined> {
  return trx
    .selectFrom("bots")
    .selectAll()
    .where(isUuid(ref) ? "id" : "slug", "=", isUuid(ref) ? ref.toLowerCase() : ref)
    .forUpdate()
    .executeTakeFirst();
}

/** A bot row with its created_at as a page token carries it (microseconds, UTC). */
export type ListedBotRow = BotRow & { created_key: string };

/**
 * One page of bots, oldest first, by (created_at, id): the (created_at, id) index and its
 * (status | kind | fleet, created_at, id) siblings serve it, so the last page costs what the
 * first does. `after` resumes after a page token's keys; `afterId` after a bot (the older
 * `after` parameter), compared in the database at its own microsecond precision.
 */
export function listBots(
  db: Db,
  filter: {
    status?: string;
    kind?: string;
    fleet?: string;
    limit: number;
    after?: readonly string[];
    afterId?: string;
  },
): Promise<ListedBotRow[]> {
  let q = db
    .selectFrom("bots")
    .selectAll()
    .select((eb) => timestampKey(eb.ref("created_at")).as("created_key"));
  if (filter.status) q = q.where("status", "=", filter.status as BotRow["status"]);
  if (filter.kind) q = q.where("kind", "=", filter.kind as BotRow["kind"]);
  if (filter.fleet) q = q.where("fleet", "=", filter.fleet);
  if (filter.after)
    q = q.where((eb) =>
      keysetAfter([eb.ref("created_at"), eb.ref("id")], filter.after!, BOT_KEYS, "asc"),
    );
  else if (filter.afterId)
    q = q.where(
      (eb) =>
        sql<boolean>`(${eb.ref("created_at")}, ${eb.ref("id")}) > (${db
          .selectFrom("bots as anchor")
          .select(["anchor.created_at", "anchor.id"])
          .where("anchor.id", "=", filter.afterId!)})`,
    );
  return q.orderBy("created_at").orderBy("id").limit(filter.limit).execute();
}

/** The sort keys of the bots list: created_at, then id to break a tie. */
export const BOT_KEYS = ["timestamp", "uuid"] as const;

export async function insertBot(trx: Trx, row: NewBotRow): Promise<BotRow> {
  return trx.insertInto("bots").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function updateBot(trx: Trx, id: string, patch: BotRowUpdate): Promise<BotRow> {
  return trx
    .updateTable("bots")
    .set({ ...patch, updated_at: sql<Date>`now()` as unknown as Date })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function insertVersion(
  trx: Trx,
  row: {
    bot_id: string;
    version: number;
    spec_hash: string;
    spec: string;
    created_by: string;
    strategy_digest?: string | null;
    bundle_digest?: string | null;
  },
): Promise<void> {
  await trx.insertInto("bot_versions").values(row).execute();
}

/** One version of a bot, or undefined when the bot has no such version. */
export function findVersion(
  db: Db | Trx,
  botId: string,
  version: number,
): Promise<BotVersionRow | undefined> {
  return db
    .selectFrom("bot_versions")
    .selectAll()
    .where("bot_id", "=", botId)
    .where("version", "=", version)
    .executeTakeFirst();
}

/** One page of the bot's versions, oldest first; the (bot_id, version) key serves it. */
export function listVersions(
  db: Db,
  botId: string,
  page: { limit: number; afterVersion?: number },
): Promise<BotVersionRow[]> {
  let q = db.selectFrom("bot_versions").selectAll().where("bot_id", "=", botId);
  if (page.afterVersion !== undefined) q = q.where("version", ">", page.afterVersion);
  return q.orderBy("version").limit(page.limit).execute();
}

export async function deleteBot(trx: Trx, id: string): Promise<void> {
  await trx.deleteFrom("bots").where("id", "=", id).execute();
}
