import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { Bars } from "../engine/bars.js";
import type { DatasetSource } from "../engine/data-source.js";
import type { BotsDatabase, DatasetRow } from "./bots.table.js";

type Db = Kysely<BotsDatabase>;
const COLUMNS = ["time", "open", "high", "low", "close", "volume"] as const;

export interface NewDataset {
  name: string;
  symbol: string;
  timeframe: string;
  sizeBytes: number;
  createdBy: string;
  /** The bars, in time order, in the chunks they are stored and read back in. */
  chunks: Bars[];
}

/**
 * Only SQL lives here: uploaded data sets and their bars. The bars go in as chunks of six
 * float64 columns, so a run reads one chunk (a few MiB) at a time. The whole upload is one
 * transaction: a data set is there with all its bars, or not at all.
 */
export async function insertDataset(db: Db, d: NewDataset): Promise<DatasetRow> {
  const first = d.chunks[0]!;
  const last = d.chunks.at(-1)!;
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .insertInto("datasets")
      .values({
        id: randomUUID(),
        name: d.name,
        symbol: d.symbol,
        timeframe: d.timeframe,
        first_bar_time: new Date(first.time[0]!),
        last_bar_time: new Date(last.time[last.length - 1]!),
        bar_count: d.chunks.reduce((n, c) => n + c.length, 0),
        size_bytes: d.sizeBytes,
        created_by: d.createdBy,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    for (const [seq, chunk] of d.chunks.entries())
      await trx
        .insertInto("dataset_chunks")
        .values({ dataset_id: row.id, seq, bar_count: chunk.length, bars: encode(chunk) })
        .execute();
    return row;
  });
}

export function findDataset(db: Db, name: string): Promise<DatasetRow | undefined> {
  return db.selectFrom("datasets").selectAll().where("name", "=", name).executeTakeFirst();
}

/** One page of the uploaded data sets by name; the unique index on name serves it. */
export function listDatasets(
  db: Db,
  page: { limit: number; afterName?: string },
): Promise<DatasetRow[]> {
  let q = db.selectFrom("datasets").selectAll();
  if (page.afterName !== undefined) q = q.where("name", ">", page.afterName);
  return q.orderBy("name").limit(page.limit).execute();
}

/** The data set's bars a chunk at a time: one query per chunk, never the whole set at once. */
async function* readChunks(db: Db, datasetId: string): AsyncGenerator<Bars> {
  for (let seq = 0; ; seq++) {
    const row = await db
      .selectFrom("dataset_chunks")
      .select(["bar_count", "bars"])
      .where("dataset_id", "=", datasetId)
      .where("seq", "=", seq)
      .executeTakeFirst();
    if (!row) return;
    yield decode(row.bars, row.bar_count);
  }
}

/** The engine's way to uploaded data sets. */
export function datasetSource(db: Db): DatasetSource {
  return {
    async describe(name) {
      const row = await findDataset(db, name);
      return row ? { symbol: row.symbol, timeframe: row.timeframe } : undefined;
    },
    async *chunks(name) {
      const row = await findDataset(db, name);
      if (row) yield* readChunks(db, row.id);
    },
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
