import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  BotsService,
  DatasetSchema,
  ListDatasetsResponseSchema,
  type Dataset,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { principalOf } from "@svc/lib/auth";
import { isUniqueViolation } from "@svc/lib/db";
import { Code, svcError } from "@svc/lib/errors";
import { decodePageToken, pageOf, pageSize } from "@svc/lib/paging";
import {
  allocateBars,
  setBar,
  BUNDLED_DATASETS,
  CsvBarParser,
  EngineInputError,
  streamBars,
  type Bars,
} from "../engine/index.js";
import { CSV_CHUNK_BARS } from "../engine/csv-source.js";
import * as store from "../store/datasets.repository.js";
import type { BotsDatabase, DatasetRow } from "../store/bots.table.js";

type Handlers = Pick<ServiceImpl<typeof BotsService>, "uploadDataset" | "listDatasets">;

const BUNDLED = "bundled";
const UPLOADED = "uploaded";
const DATASETS = { list: "datasets", filters: {}, keys: ["text", "text"] } as const;

export interface DatasetDeps {
  db: Kysely<BotsDatabase>;
  /** SVC_DATASET_MAX_BYTES: the largest CSV kept. */
  maxBytes: number;
}

/**
 * Data sets: an uploaded CSV is checked whole (the first bad line is refused with its number)
 * before anything is stored, then kept in chunks of bars that any process streams back.
 */
export function createDatasetHandlers(deps: DatasetDeps): Handlers {
  const { db } = deps;
  let bundled: Promise<Dataset[]> | undefined;
  return {
    async uploadDataset(req, ctx) {
      const size = Buffer.byteLength(req.csv, "utf8");
      if (size > deps.maxBytes)
        throw svcError(
          Code.InvalidArgument,
          "dataset_too_large",
          `the CSV is ${size} bytes; a data set may be at most ${deps.maxBytes} bytes (SVC_DATASET_MAX_BYTES)`,
          { field: "csv", limit_bytes: deps.maxBytes, size_bytes: size },
        );
      if (BUNDLED_DATASETS[req.name] || (await store.findDataset(db, req.name)))
        throw taken(req.name);
      const chunks = parseChunks(req.csv);
      const row = await store
        .insertDataset(db, {
          name: req.name,
          symbol: req.symbol,
          timeframe: req.timeframe,
          sizeBytes: size,
          createdBy: principalOf(ctx).sub,
          chunks,
        })
        .catch((err: unknown) => {
          // Two uploads of one name at once: the second meets the unique name.
          if (isUniqueViolation(err)) throw taken(req.name);
          throw err;
        });
      return rowToDataset(row);
    },

    async listDatasets(req) {
      const size = pageSize(req.limit);
      const after = decodePageToken(DATASETS, req.pageToken);
      bundled ??= bundledDatasets();
      // One order over two sources: the bundled sets by name, then the uploaded ones by name.
      const [group, name = ""] = after ?? [BUNDLED];
      const fromBundled =
        group === BUNDLED ? (await bundled).filter((d) => !after || d.name > name) : [];
      const uploaded =
        fromBundled.length > size
          ? []
          : await store.listDatasets(db, {
              limit: size + 1 - fromBundled.length,
              afterName: group === UPLOADED ? name : undefined,
            });
      const rows = [...fromBundled, ...uploaded.map(rowToDataset)];
      const page = pageOf(rows, size, DATASETS, (d) => [d.bundled ? BUNDLED : UPLOADED, d.name]);
      return create(ListDatasetsResponseSchema, {
        items: page.items,
        nextPageToken: page.nextPageToken,
      });
    },
  };
}

function taken(name: string) {
  return svcError(
    Code.AlreadyExists,
    "dataset_exists",
    `a data set named ${name} exists already; choose another name (GET /datasets lists them)`,
    { field: "name" },
  );
}

/** The CSV's bars in stored chunks; a bad line is a 400 naming it. */
function parseChunks(csv: string): Bars[] {
  const chunks: Bars[] = [];
  let chunk = allocateBars(CSV_CHUNK_BARS);
  let n = 0;
  const parser = new CsvBarParser((time, o, h, l, c, v) => {
    if (n === CSV_CHUNK_BARS) {
      chunks.push(chunk);
      chunk = allocateBars(CSV_CHUNK_BARS);
      n = 0;
    }
    setBar(chunk, n++, time, o, h, l, c, v);
  });
  try {
    // A line at a time, so a bad line is named by its number (1 is the header).
    let from = 0;
    while (from <= csv.length) {
      const end = csv.indexOf("\n", from);
      const line = csv.slice(from, end < 0 ? csv.length : end);
      parser.push(line.endsWith("\r") ? line.slice(0, -1) : line);
      if (end < 0) break;
      from = end + 1;
    }
    parser.end();
  } catch (err) {
    if (err instanceof EngineInputError)
      throw svcError(Code.InvalidArgument, err.code, err.message, {
        field: "csv",
        ...(err.line ? { line: err.line } : {}),
      });
    throw err;
  }
  if (n > 0) chunks.push(headOf(chunk, n));
  return chunks;
}

function headOf(b: Bars, n: number): Bars {
  return {
    length: n,
    time: b.time.slice(0, n),
    open: b.open.slice(0, n),
    high: b.high.slice(0, n),
    low: b.low.slice(0, n),
    close: b.close.slice(0, n),
    volume: b.volume.slice(0, n),
  };
}

function rowToDataset(row: DatasetRow): Dataset {
  return create(DatasetSchema, {
    name: row.name,
    dataSource: `csv:${row.name}`,
    symbol: row.symbol,
    timeframe: row.timeframe,
    firstBarTime: timestampFromDate(new Date(row.first_bar_time)),
    lastBarTime: timestampFromDate(new Date(row.last_bar_time)),
    barCount: BigInt(row.bar_count),
    bundled: false,
    sizeBytes: BigInt(row.size_bytes),
    createdBy: row.created_by,
    createdAt: timestampFromDate(new Date(row.created_at)),
  });
}

/** The bundled data sets by name, read through once (they never change while the process runs). */
async function bundledDatasets(): Promise<Dataset[]> {
  const out: Dataset[] = [];
  for (const [name, info] of Object.entries(BUNDLED_DATASETS)) {
    let count = 0;
    let first = NaN;
    let last = NaN;
    for await (const b of streamBars(`csv:${name}`)) {
      if (count === 0) first = b.time[0]!;
      last = b.time[b.length - 1]!;
      count += b.length;
    }
    out.push(
      create(DatasetSchema, {
        name,
        dataSource: `csv:${name}`,
        symbol: info.symbol,
        timeframe: info.timeframe,
        firstBarTime: timestampFromDate(new Date(first)),
        lastBarTime: timestampFromDate(new Date(last)),
        barCount: BigInt(count),
        bundled: true,
      }),
    );
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
