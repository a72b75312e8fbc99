import { randomUUID } from "node:crypto";
import { sql, type Kysely, type Transaction } from "kysely";
import type { Bars } from "../engine/bars.js";
import type { DatasetSource } from "../engine/data-source.js";
import { BarDigest, type BarStats, type ChunkSink } from "../data/chunker.js";
import type { BotsDatabase, DatasetRow } from "./bots.table.js";

type Db = Kysely<BotsDatabase>;
type Tx = Transaction<BotsDatabase>;
const COLUMNS = ["time", "open", "high", "low", "close", "volume"] as const;

export interface NewDataset {
  name: string;
  timeframe: string;
  createdBy: string;
  origin: string;
  format: string;
}

/**
 * Only SQL lives here: data sets and their bars. The bars go in as chunks of six float64 columns
 * per symbol, so a run reads one chunk (a few MiB) at a time. An import is one transaction: the
 * row goes in first (a second import of the name waits on its unique index, then fails), the
 * chunks as `fill` cuts them, the figures last; a data set is there with all its bars, or not at
 * all.
 */
export async function createDataset(
  db: Db,
  d: NewDataset,
  fill: (sink: ChunkSink) => Promise<{ stats: BarStats; sizeBytes: number }>,
): Promise<DatasetRow> {
  return db.transaction().execute(async (trx) => {
    const id = randomUUID();
    await trx
      .insertInto("datasets")
      .values({
        id,
        name: d.name,
        symbol: "",
        timeframe: d.timeframe,
        first_bar_time: new Date(0),
        last_bar_time: new Date(0),
        bar_count: 0,
        size_bytes: 0,
        created_by: d.createdBy,
        origin: d.origin,
        format: d.format,
      })
      .execute();
    const digest = new BarDigest();
    const { stats, sizeBytes } = await fill(async (symbol, seq, bars) => {
      digest.add(symbol, bars);
      await insertChunk(trx, id, symbol, seq, bars);
    });
    return trx
      .updateTable("datasets")
      .set({
        symbol: stats.symbols[0]!,
        symbols: stats.symbols,
        first_bar_time: new Date(stats.firstMs),
        last_bar_time: new Date(stats.lastMs),
        bar_count: stats.count,
        gaps: stats.gaps,
        size_bytes: sizeBytes,
        digest: digest.hex(),
      })
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

function insertChunk(trx: Tx, id: string, symbol: string, seq: number, bars: Bars) {
  return trx
    .insertInto("dataset_chunks")
    .values({ dataset_id: id, symbol, seq, bar_count: bars.length, bars: encode(bars) })
    .execute();
}

/**
 * Appends a page of one symbol's bars to a pulled data set, in its own transaction under the
 * row's lock, keeping only bars after the last one written: a page fetched twice (a retry, a
 * pull restarted, two pulls at once) adds nothing twice. Answers the row and the bars added.
 */
export async function appendBars(
  db: Db,
  name: string,
  symbol: string,
  timeframeMs: number,
  page: Bars,
): Promise<{ row: DatasetRow; added: number }> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom("datasets")
      .selectAll()
      .where("name", "=", name)
      .forUpdate()
      .executeTakeFirstOrThrow();
    const count = Number(row.bar_count);
    const lastMs = count > 0 ? new Date(row.last_bar_time).getTime() : -Infinity;
    let from = 0;
    while (from < page.length && page.time[from]! <= lastMs) from++;
    const fresh = sliceFrom(page, from);
    if (fresh.length === 0) return { row, added: 0 };
    let gaps = count > 0 && fresh.time[0]! - lastMs > timeframeMs ? 1 : 0;
    for (let i = 1; i < fresh.length; i++)
      if (fresh.time[i]! - fresh.time[i - 1]! > timeframeMs) gaps++;
    const { next } = await trx
      .selectFrom("dataset_chunks")
      .select(sql<number>`coalesce(max(seq) + 1, 0)`.as("next"))
      .where("dataset_id", "=", row.id)
      .where("symbol", "=", symbol)
      .executeTakeFirstOrThrow();
    await insertChunk(trx, row.id, symbol, Number(next), fresh);
    const updated = await trx
      .updateTable("datasets")
      .set({
        symbol,
        symbols: [symbol],
        ...(count === 0 ? { first_bar_time: new Date(fresh.time[0]!) } : {}),
        last_bar_time: new Date(fresh.time[fresh.length - 1]!),
        bar_count: count + fresh.length,
        gaps: Number(row.gaps) + gaps,
        digest: "",
      })
      .where("id", "=", row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { row: updated, added: fresh.length };
  });
}

/** An empty data set a pull fills; one of the name already there is answered as it is. */
export async function ensureDataset(
  db: Db,
  d: NewDataset & { symbol: string },
): Promise<DatasetRow> {
  await db
    .insertInto("datasets")
    .values({
      id: randomUUID(),
      name: d.name,
      symbol: d.symbol,
      symbols: [d.symbol],
      timeframe: d.timeframe,
      first_bar_time: new Date(0),
      last_bar_time: new Date(0),
      bar_count: 0,
      size_bytes: 0,
      created_by: d.createdBy,
      origin: d.origin,
      format: d.format,
    })
    .onConflict((c) => c.column("name").doNothing())
    .execute();
  return (await findDataset(db, d.name))!;
}

/** Computes the digest of the bars as stored (after a pull's pages) and records it. */
export async function refreshDigest(db: Db, row: DatasetRow): Promise<DatasetRow> {
  const digest = new BarDigest();
  for (const symbol of [...row.symbols].sort())
    for await (const chunk of readChunks(db, row.id, symbol)) digest.add(symbol, chunk);
  return db
    .updateTable("datasets")
    .set({ digest: digest.hex() })
    .where("id", "=", row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findDataset(db: Db, name: string): Promise<DatasetRow | undefined> {
  return db.selectFrom("datasets").selectAll().where("name", "=", name).executeTakeFirst();
}

/** One page of the stored data sets by name; the unique index on name serves it. */
export function listDatasets(
  db: Db,
  page: { limit: number; afterName?: string },
): Promise<DatasetRow[]> {
  let q = db.selectFrom("datasets").selectAll();
  if (page.afterName !== undefined) q = q.where("name", ">", page.afterName);
  return q.orderBy("name").limit(page.limit).execute();
}

/** What cites a data set: runs (backtests, paper sessions), trials and sweeps. */
export interface Citations {
  deployments: number;
  trials: number;
  sweeps: number;
}

/**
 * Deletes a data set nothing cites, with its bars, in one transaction holding the row's lock;
 * `cited` when a run, trial or sweep names it (it is their evidence), undefined when absent.
 */
export async function deleteDataset(
  db: Db,
  name: string,
): Promise<{ row: DatasetRow } | { cited: Citations } | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom("datasets")
      .selectAll()
      .where("name", "=", name)
      .forUpdate()
      .executeTakeFirst();
    if (!row) return undefined;
    const source = `csv:${name}`;
    const [deployments, trials, sweeps] = await Promise.all([
      trx
        .selectFrom("bot_deployments")
        .select((e) => e.fn.countAll<string>().as("n"))
        .where(sql`request->>'data_source'`, "=", source)
        .executeTakeFirstOrThrow(),
      trx
        .selectFrom("trial_ledger")
        .select((e) => e.fn.countAll<string>().as("n"))
        .where("data_source", "=", source)
        .executeTakeFirstOrThrow(),
      trx
        .selectFrom("sweeps")
        .select((e) => e.fn.countAll<string>().as("n"))
        .where(sql`request->>'data_source'`, "=", source)
        .executeTakeFirstOrThrow(),
    ]);
    const cited = {
      deployments: Number(deployments.n),
      trials: Number(trials.n),
      sweeps: Number(sweeps.n),
    };
    if (cited.deployments + cited.trials + cited.sweeps > 0) return { cited };
    await trx.deleteFrom("datasets").where("id", "=", row.id).execute();
    return { row };
  });
}

/** One symbol's bars a chunk at a time: one query per chunk, never the whole set at once. */
async function* readChunks(db: Db, datasetId: string, symbol: string): AsyncGenerator<Bars> {
  for (let seq = -1; ;) {
    const row = await db
      .selectFrom("dataset_chunks")
      .select(["seq", "bar_count", "bars"])
      .where("dataset_id", "=", datasetId)
      .where("symbol", "=", symbol)
      .where("seq", ">", seq)
      .orderBy("seq")
      .limit(1)
      .executeTakeFirst();
    if (!row) return;
    seq = row.seq;
    yield decode(row.bars, row.bar_count);
  }
}

/** The engine's way to stored data sets. */
export function datasetSource(db: Db): DatasetSource {
  return {
    async describe(name) {
      const row = await findDataset(db, name);
      return row && Number(row.bar_count) > 0
        ? { symbol: row.symbol, timeframe: row.timeframe, symbols: row.symbols }
        : undefined;
    },
    async *chunks(name, symbol) {
      const row = await findDataset(db, name);
      if (row) yield* readChunks(db, row.id, symbol ?? row.symbol);
    },
  };
}

function sliceFrom(b: Bars, from: number): Bars {
  return {
    length: b.length - from,
    time: b.time.subarray(from),
    open: b.open.subarray(from),
    high: b.high.subarray(from),
    low: b.low.subarray(from),
    close: b.close.subarray(from),
    volume: b.volume.subarray(from),
  };
}

function encode(b: Bars): Buffer {
  const out = new Float64Array(b.length * COLUMNS.length);
  COLUMNS.forEach((k, i) => out.set(b[k].subarray(0, b.length), i * b.length));
  return Buffer.from(out.buffer);
}

function decode(buf: Buffer, n: number): Bars {
  // A copy: the driver's Buffer may sit at an offset a Float64Array cannot view.
  const all = new Float64Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  const col = (i: number) => all.subarray(i * n, (i + 1) * n);
  return {
    length: n,
    time: col(0),
    open: col(1),
    high: col(2),
    low: col(3),
    close: col(4),
    volume: col(5),
  };
}
