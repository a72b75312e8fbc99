import {
  recordAudit as recordPlatformAudit,
  type AuditEntry,
  type AuditOrigin,
} from "@svc/lib/audit";
import { sql, type Kysely, type Transaction } from "kysely";
import { keysetAfter, timestampKey } from "@svc/lib/paging";
import {
  KILLSWITCH_SCHEMA,
  type KillSwitchDatabase,
  type KillSwitchRow,
} from "./killswitch.table.js";

type Db = Kysely<KillSwitchDatabase> | Transaction<KillSwitchDatabase>;

export async function findSwitch(db: Db, name: string): Promise<KillSwitchRow | undefined> {
  return db.selectFrom("kill_switches").selectAll().where("name", "=", name).executeTakeFirst();
}

export async function listSwitches(db: Db): Promise<KillSwitchRow[]> {
  return db.selectFrom("kill_switches").selectAll().orderBy("engaged_at").orderBy("name").execute();
}

/** The sort keys of the kill-switch list: engaged_at, then name. */
export const SWITCH_KEYS = ["timestamp", "text"] as const;

/** One page of switches by (engaged_at, name); the (engaged_at, name) index serves it. */
export async function pageSwitches(
  db: Db,
  page: { limit: number; after?: readonly string[] },
): Promise<Array<KillSwitchRow & { engaged_key: string }>> {
  let q = db
    .selectFrom("kill_switches")
    .selectAll()
    .select((eb) => timestampKey(eb.ref("engaged_at")).as("engaged_key"));
  if (page.after)
    q = q.where((eb) =>
      keysetAfter([eb.ref("engaged_at"), eb.ref("name")], page.after!, SWITCH_KEYS, "asc"),
    );
  return q.orderBy("engaged_at").orderBy("name").limit(page.limit).execute();
}

/** The switches on one key (scope and target), the expired ones included until the sweep. */
export async function switchesOn(db: Db, scope: string, target: string): Promise<KillSwitchRow[]> {
  return db
    .selectFrom("kill_switches")
    .selectAll()
    .where("scope", "=", scope as KillSwitchRow["scope"])
    .where("target", "=", target)
    .execute();
}

export async function upsertSwitch(
  db: Db,
  row: Omit<KillSwitchRow, "engaged_at">,
): Promise<KillSwitchRow> {
  return db
    .insertInto("kill_switches")
    .values(row)
    .onConflict((oc) => oc.column("name").doUpdateSet({ ...row, engaged_at: sql<Date>`now()` }))
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function deleteSwitch(db: Db, name: string): Promise<boolean> {
  const r = await db.deleteFrom("kill_switches").where("name", "=", name).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/**
 * Deletes a switch only while it is still the lapsed one on that key: a switch re-applied or
 * moved since the sweep read it is a new engagement that its old TTL must not release.
 */
export async function deleteLapsedSwitch(
  db: Db,
  lapsed: Pick<KillSwitchRow, "name" | "scope" | "target">,
): Promise<boolean> {
  const r = await db
    .deleteFrom("kill_switches")
    .where("name", "=", lapsed.name)
    .where("scope", "=", lapsed.scope)
    .where("target", "=", lapsed.target)
    .where("expires_at", "<=", sql<Date>`now()`)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

export async function switchNames(db: Db): Promise<Set<string>> {
  return new Set(
    (await db.selectFrom("kill_switches").select("name").execute()).map((r) => r.name),
  );
}

export async function isKnownBot(db: Db, slug: string): Promise<boolean> {
  return (
    (await db
      .selectFrom("known_bots")
      .select("slug")
      .where("slug", "=", slug)
      .executeTakeFirst()) !== undefined
  );
}

/** A security-relevant act, into this service's outbox in the caller's transaction (lib/audit). */
export async function recordAudit(
  trx: Transaction<KillSwitchDatabase>,
  origin: AuditOrigin,
  entry: AuditEntry,
): Promise<void> {
  await recordPlatformAudit(trx, KILLSWITCH_SCHEMA, "killswitch", origin, entry);
}

/**
 * Serializes every writer of one kill-switch key (handlers, the TTL sweep, the reconciler, other
 * instances of this service) for the rest of the transaction, so read-merge-write of the key's
 * engagers never loses one.
 */
export async function lockKey(trx: Transaction<KillSwitchDatabase>, key: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
}

/**
 * Serializes every writer of one switch name (engage, rescope, release) for the rest of the
 * transaction, so its row is read and changed by one at a time even before it exists. Taken
 * before any key lock: the order name, then keys, is the same for every writer.
 */
export async function lockName(trx: Transaction<KillSwitchDatabase>, name: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${"kill_switch/" + name}, 0))`.execute(
    trx,
  );
}

/** Records (or renames) a bot a bot-scope switch may name, as the bots service announced it. */
export async function upsertKnownBot(
  db: Db,
  bot: { bot_id: string; slug: string; fleet: string },
): Promise<void> {
  await db
    .insertInto("known_bots")
    .values(bot)
    .onConflict((oc) => oc.column("bot_id").doUpdateSet({ slug: bot.slug, fleet: bot.fleet }))
    .execute();
}

export async function forgetKnownBot(db: Db, botId: string): Promise<void> {
  await db.deleteFrom("known_bots").where("bot_id", "=", botId).execute();
}
