import { sql, type Kysely, type Transaction } from "kysely";
import type { RunnerEvent, StoredEvent } from "../runner/events.js";
import { emptyState, foldEvents, type BotState } from "../runner/state.js";
import type { BotsDatabase } from "./bots.table.js";

type Db = Kysely<BotsDatabase>;
/** Every so many events a bot's folded state is written down, as the events are appended. */
const CHECKPOINT_EVERY = 500;

/** The lease a session's holder claimed: its host name and the epoch the claim set. */
export interface LeaseFence {
  host: string;
  epoch: string;
}

/** Raised to a holder whose lease moved to another host: it must stop the session at once. */
export class LeaseLost extends Error {
  constructor(
    readonly taskId: string,
    readonly holder: { host: string | null; epoch: string },
  ) {
    super(
      `the lease of session ${taskId} moved to ${holder.host ?? "nobody"} (epoch ${holder.epoch}); this holder stops`,
    );
    this.name = "LeaseLost";
  }
}

/**
 * Appends events with the bot's next sequence numbers. The bot row is locked meanwhile, so two
 * writers of one bot never take the same number; a deleted bot takes no more events. With a
 * fence, the append is refused unless the session's lease is still the one the writer claimed:
 * a runner paused past its lease and resumed cannot write a bar or an order twice. An append that
 * crosses a multiple of CHECKPOINT_EVERY writes the folded state there, in the same transaction,
 * so that reads stay short and never write.
 */
export async function appendEvents(
  db: Db,
  botId: string,
  taskId: string,
  events: RunnerEvent[],
  fence?: LeaseFence,
  /** A sandboxed strategy's state as of the batch's last bar: kept in the same transaction. */
  strategyState?: { bar: number; json: string },
): Promise<void> {
  if (events.length === 0) return;
  await db.transaction().execute(async (trx) => {
    const bot = await trx
      .selectFrom("bots")
      .select("id")
      .where("id", "=", botId)
      .forUpdate()
      .executeTakeFirst();
    if (!bot) throw new Error(`bot ${botId} no longer exists`);
    if (fence) {
      // Locking the deployment row orders this append against a takeover (which updates that row):
      // either the takeover committed first and is seen here, or it waits until these events are
      // committed, and the new holder, reading the events after its claim, resumes after them.
      const lease = await trx
        .selectFrom("bot_deployments")
        .select(["host", "lease_epoch"])
        .where("task_id", "=", taskId)
        .forUpdate()
        .executeTakeFirst();
      if (!lease || lease.host !== fence.host || String(lease.lease_epoch) !== fence.epoch)
        throw new LeaseLost(taskId, {
          host: lease?.host ?? null,
          epoch: String(lease?.lease_epoch ?? "?"),
        });
    }
    const { max } = await trx
      .selectFrom("bot_events")
      .select(sql<string>`coalesce(max(seq), 0)`.as("max"))
      .where("bot_id", "=", botId)
      .executeTakeFirstOrThrow();
    const base = Number(max);
    await trx
      .insertInto("bot_events")
      .values(
        events.map((e, i) => ({
          bot_id: botId,
          seq: base + i + 1,
          task_id: taskId,
          type: e.type,
          data: JSON.stringify(e.data),
        })),
      )
      .execute();
    if (strategyState)
      await trx
        .insertInto("session_strategy_state")
        .values({ task_id: taskId, bar: strategyState.bar, state: strategyState.json })
        .onConflict((oc) =>
          oc.column("task_id").doUpdateSet({
            bar: strategyState.bar,
            state: strategyState.json,
            updated_at: sql`now()`,
          }),
        )
        .execute();
    const last = base + events.length;
    if (Math.floor(last / CHECKPOINT_EVERY) > Math.floor(base / CHECKPOINT_EVERY))
      await writeCheckpoint(trx, botId, last);
  });
}

/** The bot's state folded up to `seq` (events up to it are all committed or in `trx`). */
async function writeCheckpoint(
  trx: Transaction<BotsDatabase>,
  botId: string,
  seq: number,
): Promise<void> {
  const state = await stateAsOf(trx, botId, { seq });
  await trx
    .insertInto("bot_checkpoints")
    .values({ bot_id: botId, seq: state.seq, state: JSON.stringify(state) })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

function toStored(r: {
  seq: string;
  type: string;
  occurred_at: Date;
  data: Record<string, unknown>;
}): StoredEvent {
  return {
    seq: Number(r.seq),
    type: r.type as StoredEvent["type"],
    occurredAt: new Date(r.occurred_at),
    data: r.data,
  };
}

/** The bot's events after `afterSeq`, in order; only those of `types` when given. */
export async function listEvents(
  db: Db,
  botId: string,
  afterSeq: number,
  limit: number,
  types: readonly string[] = [],
): Promise<StoredEvent[]> {
  let q = db
    .selectFrom("bot_events")
    .select(["seq", "type", "occurred_at", "data"])
    .where("bot_id", "=", botId)
    .where("seq", ">", String(afterSeq));
  if (types.length > 0) q = q.where("type", "in", types);
  const rows = await q.orderBy("seq").limit(limit).execute();
  return rows.map(toStored);
}

export async function taskEvents(db: Db, taskId: string): Promise<StoredEvent[]> {
  const rows = await db
    .selectFrom("bot_events")
    .select(["seq", "type", "occurred_at", "data"])
    .where("task_id", "=", taskId)
    .orderBy("seq")
    .execute();
  return rows.map(toStored);
}

/**
 * The bot's state as of `asOf` (a sequence number or a time; now by default): the latest
 * checkpoint before it plus the events after it. A read only: checkpoints are written by
 * appendEvents, where the state changes.
 */
export async function stateAsOf(
  db: Db | Transaction<BotsDatabase>,
  botId: string,
  asOf: { seq?: number; time?: Date } = {},
): Promise<BotState> {
  let cq = db.selectFrom("bot_checkpoints").select(["seq", "state"]).where("bot_id", "=", botId);
  if (asOf.seq !== undefined) cq = cq.where("seq", "<=", String(asOf.seq));
  const checkpoint = asOf.time
    ? undefined
    : await cq.orderBy("seq", "desc").limit(1).executeTakeFirst();
  const from = checkpoint ? (checkpoint.state as unknown as BotState) : emptyState();
  let eq = db
    .selectFrom("bot_events")
    .select(["seq", "type", "occurred_at", "data"])
    .where("bot_id", "=", botId)
    .where("seq", ">", String(from.seq));
  if (asOf.seq !== undefined) eq = eq.where("seq", "<=", String(asOf.seq));
  if (asOf.time) eq = eq.where("occurred_at", "<=", asOf.time);
  const events = (await eq.orderBy("seq").execute()).map(toStored);
  return foldEvents(events, from);
}

/**
 * Each bot's runtime phase, for a page of bots in one query: the phase is whatever the bot's
 * latest session_started ("Running") or phase_changed event set, which is what folding all its
 * events gives (stateAsOf); a bot with neither is absent (Idle). The partial index of those two
 * event types holds only them, so the read stays short however many bars a session recorded.
 */
export async function phasesOf(db: Db, botIds: readonly string[]): Promise<Map<string, string>> {
  if (botIds.length === 0) return new Map();
  const rows = await db
    .selectFrom("bot_events")
    .distinctOn("bot_id")
    .select([
      "bot_id",
      sql<string>`case when type = 'session_started' then 'Running' else data->>'phase' end`.as(
        "phase",
      ),
    ])
    .where("bot_id", "in", [...botIds])
    .where("type", "in", ["session_started", "phase_changed"])
    .orderBy("bot_id")
    .orderBy("seq", "desc")
    .execute();
  return new Map(rows.map((r) => [r.bot_id, r.phase]));
}

/** The last strategy state a session kept with its events (its bar and JSON), if any. */
export async function sessionStrategyState(
  db: Db,
  taskId: string,
): Promise<{ bar: number; json: string } | undefined> {
  const row = await db
    .selectFrom("session_strategy_state")
    .select(["bar", "state"])
    .where("task_id", "=", taskId)
    .executeTakeFirst();
  return row ? { bar: row.bar, json: row.state } : undefined;
}
