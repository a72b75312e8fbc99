import { sql, type CompiledQuery, type Insertable, type Kysely, type Transaction } from "kysely";
import { keysetAfter, timestampKey } from "@svc/lib/paging";
import type {
  DecisionRow,
  KnownVersionRow,
  PromotionDatabase,
  PromotionStatusName,
  RequestRow,
} from "./promotion.table.js";

type Db = Kysely<PromotionDatabase>;
type Trx = Transaction<PromotionDatabase>;

/** Only SQL lives here. */
export function findRequest(db: Db | Trx, id: string): Promise<RequestRow | undefined> {
  return db
    .selectFrom("promotion_requests")
    .selectAll()
    .where("request_id", "=", id)
    .executeTakeFirst();
}

/** Locks the request for the rest of the transaction: of concurrent decisions one wins. */
export function lockRequest(trx: Trx, id: string): Promise<RequestRow | undefined> {
  return trx
    .selectFrom("promotion_requests")
    .selectAll()
    .where("request_id", "=", id)
    .forUpdate()
    .executeTakeFirst();
}

/** The sort keys of the requests list, newest first: created_at, then request_id. */
export const REQUEST_KEYS = ["timestamp", "text"] as const;

/**
 * One page of requests, newest first, by (created_at, request_id) descending; `before` resumes
 * after a page token's keys. The (created_at, request_id) index and its (status, ...) sibling
 * serve it read backwards.
 */
export function listRequests(
  db: Db,
  filter: { statuses?: PromotionStatusName[]; limit: number; before?: readonly string[] },
): Promise<Array<RequestRow & { created_key: string }>> {
  let q = db
    .selectFrom("promotion_requests")
    .selectAll()
    .select((eb) => timestampKey(eb.ref("created_at")).as("created_key"));
  if (filter.statuses) q = q.where("status", "in", filter.statuses);
  if (filter.before)
    q = q.where((eb) =>
      keysetAfter(
        [eb.ref("created_at"), eb.ref("request_id")],
        filter.before!,
        REQUEST_KEYS,
        "desc",
      ),
    );
  return q
    .orderBy("created_at", "desc")
    .orderBy("request_id", "desc")
    .limit(filter.limit)
    .execute();
}

export function decisionsOf(db: Db | Trx, ids: string[]): Promise<DecisionRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("promotion_decisions")
    .selectAll()
    .where("request_id", "in", ids)
    .orderBy("id")
    .execute();
}

/**
 * Records a request and answers the row as stored (its times are the server's), so a create
 * never reads back what it just wrote. Alone, on `db`, the one statement is its own
 * transaction; of concurrent inserts of one request_id exactly one succeeds.
 */
export function insertRequest(
  db: Db | Trx,
  row: Insertable<PromotionDatabase["promotion_requests"]>,
): Promise<RequestRow> {
  return db.insertInto("promotion_requests").values(row).returningAll().executeTakeFirstOrThrow();
}

export async function setStatus(
  trx: Trx,
  id: string,
  status: PromotionStatusName,
  gates?: string,
): Promise<void> {
  await trx
    .updateTable("promotion_requests")
    .set({ status, updated_at: sql<Date>`now()` as unknown as Date, ...(gates ? { gates } : {}) })
    .where("request_id", "=", id)
    .execute();
}

/** A request as a create records it: every column it sets. */
export type NewRequest = Required<
  Pick<Insertable<PromotionDatabase["promotion_requests"]>, keyof typeof REQUEST_COLUMN_TYPES>
>;

/**
 * The SQL types of the columns a create sets, as the table's migrations made them: an
 * INSERT ... SELECT must say them, since a SELECT list does not take its types from the target.
 */
const REQUEST_COLUMN_TYPES = {
  request_id: "text",
  kind: "text",
  status: "text",
  body: "jsonb",
  gates: "jsonb",
  requested_by: "text",
  submitter_sub: "text",
  submitter_internal_user_id: "text",
  requires_human_approval: "boolean",
  bot_id: "text",
  version: "integer",
  version_hash: "text",
  strategy_digest: "text",
  model_digests: "text",
  expires_at: "timestamptz",
  approved_promotion_token: "text",
} as const;

/**
 * Records a request only while the projection still holds the bot version its gates ran on as
 * they saw it (id, version, slug, fleet, hash): undefined, and nothing written, when it does
 * not. One statement, so the check and the write see the same rows; alone, on `db`, it is its
 * own transaction, and of concurrent inserts of one request_id exactly one succeeds.
 *
 * The statement is built and compiled on the first call and reused after, with the new values
 * in the same places: a create is frequent and the statement's shape never changes, and
 * compiling it costs more than the rest of the handler's own work.
 *
 * @example
 * const insertIfProjected = insertRequestIfProjected();
 * const row = await insertIfProjected(db, record, seenVersion); // undefined: gate again
 */
export function insertRequestIfProjected(): (
  db: Db | Trx,
  row: NewRequest,
  seen: KnownVersionRow,
) => Promise<RequestRow | undefined> {
  const columns = Object.keys(REQUEST_COLUMN_TYPES) as Array<keyof typeof REQUEST_COLUMN_TYPES>;
  const valuesOf = (row: NewRequest, seen: KnownVersionRow) => [
    ...columns.map((c) => row[c]),
    ...[seen.bot_id, seen.version, seen.slug, seen.fleet, seen.spec_hash],
  ];
  let compiled: CompiledQuery<RequestRow> | undefined;
  return async (db, row, seen) => {
    compiled ??= compileInsertIfProjected(db, columns, row, seen, valuesOf(row, seen));
    const query: CompiledQuery<RequestRow> = { ...compiled, parameters: valuesOf(row, seen) };
    const { rows } = await db.executeQuery(query);
    return rows[0];
  };
}

function compileInsertIfProjected(
  db: Db | Trx,
  columns: Array<keyof typeof REQUEST_COLUMN_TYPES>,
  row: NewRequest,
  seen: KnownVersionRow,
  expected: unknown[],
): CompiledQuery<RequestRow> {
  const compiled = db
    .insertInto("promotion_requests")
    .columns(columns)
    .expression((eb) =>
      eb
        .selectFrom("known_bot_versions")
        .select(columns.map((c) => eb.cast(eb.val(row[c]), REQUEST_COLUMN_TYPES[c]).as(c)))
        .where("bot_id", "=", seen.bot_id)
        .where("version", "=", seen.version)
        .where("slug", "=", seen.slug)
        .where("fleet", "=", seen.fleet)
        .where("spec_hash", "=", seen.spec_hash),
    )
    .returningAll()
    .compile();
  // Reuse puts each value where this compilation put it: a Kysely that orders them otherwise
  // fails here, on the first create, not by writing a value into the wrong column.
  if (
    compiled.parameters.length !== expected.length ||
    compiled.parameters.some((v, i) => v !== expected[i])
  )
    throw new Error("insertRequestIfProjected: the compiled statement's parameters moved");
  return compiled;
}

/** Appends one decision to a request's log and answers it as stored (with its time). */
export function insertDecision(
  trx: Trx,
  d: {
    request_id: string;
    actor: string;
    action: string;
    note: string;
    acr: string;
    amr: string[];
    auth_time: Date | null;
  },
): Promise<DecisionRow> {
  return trx
    .insertInto("promotion_decisions")
    .values({ ...d, amr: JSON.stringify(d.amr) })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The bot version an artifact names: by bot id or slug, and version number. */
export function findKnownVersion(
  db: Db,
  botRef: string,
  version: number,
): Promise<KnownVersionRow | undefined> {
  return db
    .selectFrom("known_bot_versions")
    .selectAll()
    .where((eb) => eb.or([eb("bot_id", "=", botRef), eb("slug", "=", botRef)]))
    .where("version", "=", version)
    .executeTakeFirst();
}

export async function upsertKnownVersion(trx: Trx, row: KnownVersionRow): Promise<void> {
  await trx
    .insertInto("known_bot_versions")
    .values(row)
    .onConflict((oc) =>
      oc.columns(["bot_id", "version"]).doUpdateSet({
        slug: row.slug,
        fleet: row.fleet,
        spec_hash: row.spec_hash,
        strategy_digest: row.strategy_digest ?? null,
        model_digests: row.model_digests ?? null,
      }),
    )
    .execute();
}

export async function forgetBot(trx: Trx, botId: string): Promise<void> {
  await trx.deleteFrom("known_bot_versions").where("bot_id", "=", botId).execute();
}

/** Moves every pending request whose expires_at passed to expired; returns their ids. */
export async function expireOverdue(db: Db): Promise<string[]> {
  const rows = await db
    .updateTable("promotion_requests")
    .set({ status: "expired", updated_at: sql<Date>`now()` as unknown as Date })
    .where("status", "=", "pending")
    .where("expires_at", "is not", null)
    .where("expires_at", "<=", sql<Date>`now()`)
    .returning("request_id")
    .execute();
  return rows.map((r) => r.request_id);
}

/** For each allocation target (a bot slug or a fleet name): the bots it funds and their backtest counts in the ledger. */
export async function allocationLedger(
  db: Db,
  targets: string[],
): Promise<Array<{ target: string; bots: Array<{ slug: string; trials: number }> }>> {
  const out = [];
  for (const target of targets) {
    const bots = await db
      .selectFrom("known_bot_versions as v")
      .select(["v.bot_id", "v.slug"])
      .distinct()
      .where((eb) => eb.or([eb("v.slug", "=", target), eb("v.fleet", "=", target)]))
      .execute();
    const counted = [];
    for (const b of bots) {
      const { n } = await db
        .selectFrom("trials")
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .where("bot_id", "=", b.bot_id)
        .executeTakeFirstOrThrow();
      counted.push({ slug: b.slug, trials: Number(n) });
    }
    out.push({ target, bots: counted });
  }
  return out;
}

/** The slug and fleet of one bot version, as projected: what the kill-switch keys are named by. */
export function findBotOfVersion(
  db: Db | Trx,
  botId: string,
  version: number,
): Promise<{ slug: string; fleet: string } | undefined> {
  return db
    .selectFrom("known_bot_versions")
    .select(["slug", "fleet"])
    .where("bot_id", "=", botId)
    .where("version", "=", version)
    .executeTakeFirst();
}

/** One trial of the ledger as the gates read it. */
export interface LedgerTrial {
  trialId: string;
  specHash: string;
  /** null until read from the bots service (ledger-returns.ts fills and keeps them). */
  dailyReturns: number[] | null;
  /** '' when projected before it was kept. */
  dataSource: string;
  /** The sweep it was a combination of; '' for a backtest of its version as it is. */
  sweepId: string;
}

/** The TrialLedger's trials of one bot (every version), oldest first. */
export async function trialsOfBot(db: Db, botId: string): Promise<LedgerTrial[]> {
  const rows = await db
    .selectFrom("trials")
    .select(["trial_id", "spec_hash", "daily_returns", "data_source", "sweep_id"])
    .where("bot_id", "=", botId)
    .orderBy("recorded_at")
    .orderBy("trial_id")
    .execute();
  return rows.map((t) => ({
    trialId: t.trial_id,
    specHash: t.spec_hash,
    dailyReturns: t.daily_returns,
    dataSource: t.data_source,
    sweepId: t.sweep_id,
  }));
}

/** Keeps the daily returns read from the bots service for trials that had none here. */
export async function keepTrialReturns(
  db: Db,
  read: ReadonlyArray<{ trialId: string; dailyReturns: readonly number[] }>,
): Promise<void> {
  for (const r of read)
    await db
      .updateTable("trials")
      .set({ daily_returns: JSON.stringify(r.dailyReturns) })
      .where("trial_id", "=", r.trialId)
      .where("daily_returns", "is", null)
      .execute();
}

/** Keeps the ApprovedPromotion token signed at approval; reads return it as stored. */
export async function storeApprovedPromotionToken(
  trx: Trx,
  id: string,
  token: string,
): Promise<void> {
  await trx
    .updateTable("promotion_requests")
    .set({ approved_promotion_token: token })
    .where("request_id", "=", id)
    .execute();
}

/** Slug and fleet follow the newest version for every version of the bot. */
export async function renameBot(
  trx: Trx,
  botId: string,
  names: { slug: string; fleet: string },
): Promise<void> {
  await trx.updateTable("known_bot_versions").set(names).where("bot_id", "=", botId).execute();
}

/** Records one TrialLedger entry once (a redelivered event changes nothing). */
export async function insertTrial(
  trx: Trx,
  t: {
    trial_id: string;
    bot_id: string;
    version: number;
    spec_hash: string;
    strategy_family: string;
    /** An event of an earlier release carries them; null: read when a gate needs them. */
    daily_returns: number[] | null;
    data_source: string;
    sweep_id: string;
  },
): Promise<void> {
  await trx
    .insertInto("trials")
    .values({
      ...t,
      daily_returns: t.daily_returns === null ? null : JSON.stringify(t.daily_returns),
    })
    .onConflict((oc) => oc.column("trial_id").doNothing())
    .execute();
}

/** The live plane activated the artifact: an approved request is now promoted. */
export async function markPromoted(trx: Trx, id: string): Promise<void> {
  await trx
    .updateTable("promotion_requests")
    .set({ status: "promoted" })
    .where("request_id", "=", id)
    .where("status", "=", "approved")
    .execute();
}
