import { create } from "@bufbuild/protobuf";
import type { ServiceImpl } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  BotsService,
  DeleteDatasetResponseSchema,
  ListDatasetsResponseSchema,
  type Dataset,
  type UploadDatasetRequest,
} from "@svc/gen/svc/bots/v1/bots_pb.js";
import { principalOf } from "@svc/lib/auth";
import { isUniqueViolation } from "@svc/lib/db";
import { Code, svcError } from "@svc/lib/errors";
import { decodePageToken, pageOf, pageSize } from "@svc/lib/paging";
import { Readable } from "node:stream";
import { BUNDLED_DATASETS, timeframeMs } from "../engine/index.js";
import { chunkRows } from "../data/chunker.js";
import { readCsvRows } from "../data/csv-reader.js";
import {
  FetchRefused,
  formatOfUrl,
  rowsOf,
  withBytesFile,
  withUrlFile,
  type DataFormat,
  type SpooledFile,
} from "../data/import-file.js";
import { DataInputError, type BarRow } from "../data/rows.js";
import * as store from "../store/datasets.repository.js";
import type { BotsDatabase } from "../store/bots.table.js";
import { bundledDatasets, rowToDataset } from "./dataset-view.js";

type Handlers = Pick<
  ServiceImpl<typeof BotsService>,
  "uploadDataset" | "listDatasets" | "getDataset" | "deleteDataset"
>;

const BUNDLED = "bundled";
const UPLOADED = "uploaded";
const DATASETS = { list: "datasets", filters: {}, keys: ["text", "text"] } as const;

export interface DatasetDeps {
  db: Kysely<BotsDatabase>;
  /** SVC_DATASET_MAX_BYTES: the largest inline CSV kept. */
  maxBytes: number;
  /** SVC_DATASET_IMPORT_URL_PREFIXES: where a `url` may point. */
  importUrlPrefixes: readonly string[];
  /** SVC_DATASET_IMPORT_MAX_BYTES: the largest file streamed from a `url`. */
  importMaxBytes: number;
}

/**
 * The data catalog. An import (inline CSV, a file's bytes, or a URL streamed to a temporary
 * file) is read a line, row group or record batch at a time and written a chunk at a time in one
 * transaction: a bad row is refused naming where it is, and nothing of the file is kept.
 */
export function createDatasetHandlers(deps: DatasetDeps): Handlers {
  const { db } = deps;
  let bundled: Promise<Dataset[]> | undefined;
  return {
    async uploadDataset(req, ctx) {
      const field = oneSource(req);
      if (field === "url") checkImportUrl(req.url, deps.importUrlPrefixes);
      const format = formatOf(req, field);
      if (BUNDLED_DATASETS[req.name] || (await store.findDataset(db, req.name)))
        throw taken(req.name);
      const origin = field === "url" ? "url" : "upload";
      const create = (rows: () => AsyncIterable<BarRow>, sizeBytes: number) =>
        store.createDataset(
          db,
          {
            name: req.name,
            timeframe: req.timeframe,
            createdBy: principalOf(ctx).sub,
            origin,
            format,
          },
          async (sink) => ({
            sizeBytes,
            stats: await chunkRows(rows(), {
              defaultSymbol: req.symbol,
              timeframeMs: timeframeMs(req.timeframe),
              code: format === "csv" ? "malformed_csv" : "malformed_data",
              sink,
            }),
          }),
        );
      const fromFile = (f: SpooledFile) => create(() => rowsOf(format, f.path), f.sizeBytes);
      try {
        const row =
          field === "csv"
            ? await create(() => readCsvRows(Readable.from([req.csv])), inlineSize(req.csv, deps))
            : field === "data"
              ? await withBytesFile(req.data, fromFile)
              : await withUrlFile(req.url, deps.importMaxBytes, ctx.signal, fromFile);
        return rowToDataset(row);
      } catch (err) {
        // Two imports of one name at once: the second meets the unique name.
        if (isUniqueViolation(err)) throw taken(req.name);
        throw asApiError(err, field, deps);
      }
    },

    async listDatasets(req) {
      const size = pageSize(req.limit);
      const after = decodePageToken(DATASETS, req.pageToken);
      bundled ??= bundledDatasets();
      // One order over two sources: the bundled sets by name, then the stored ones by name.
      const [group, name = ""] = after ?? [BUNDLED];
      const fromBundled =
        group === BUNDLED ? (await bundled).filter((d) => !after || d.name > name) : [];
      const stored =
        fromBundled.length > size
          ? []
          : await store.listDatasets(db, {
              limit: size + 1 - fromBundled.length,
              afterName: group === UPLOADED ? name : undefined,
            });
      const rows = [...fromBundled, ...stored.map(rowToDataset)];
      const page = pageOf(rows, size, DATASETS, (d) => [d.bundled ? BUNDLED : UPLOADED, d.name]);
      return create(ListDatasetsResponseSchema, {
        items: page.items,
        nextPageToken: page.nextPageToken,
      });
    },

    async getDataset(req) {
      if (BUNDLED_DATASETS[req.name]) {
        bundled ??= bundledDatasets();
        return (await bundled).find((d) => d.name === req.name)!;
      }
      const row = await store.findDataset(db, req.name);
      if (!row) throw notFound(req.name);
      return rowToDataset(row);
    },

    async deleteDataset(req) {
      if (BUNDLED_DATASETS[req.name])
        throw svcError(
          Code.FailedPrecondition,
          "evidence_retained",
          `${req.name} is bundled with the platform; it cannot be deleted`,
          { field: "name" },
        );
      const done = await store.deleteDataset(db, req.name);
      if (!done) throw notFound(req.name);
      if ("cited" in done) {
        const { deployments, trials, sweeps } = done.cited;
        throw svcError(
          Code.FailedPrecondition,
          "evidence_retained",
          `csv:${req.name} is evidence: ${deployments} run(s), ${trials} trial(s) and ${sweeps} sweep(s) cite it; a data set a run cites is kept`,
          { field: "name", deployments, trials, sweeps },
        );
      }
      return create(DeleteDatasetResponseSchema, {
        name: req.name,
        barCount: BigInt(done.row.bar_count),
      });
    },
  };
}

/** Which one of csv, data and url the request gives; none or several is a 400. */
function oneSource(req: UploadDatasetRequest): "csv" | "data" | "url" {
  const given = (["csv", "data", "url"] as const).filter((f) =>
    f === "data" ? req.data.length > 0 : req[f] !== "",
  );
  if (given.length !== 1)
    throw svcError(
      Code.InvalidArgument,
      "invalid_argument",
      `give exactly one of csv (the text), data (a file's bytes) or url; got ${given.length === 0 ? "none" : given.join(" and ")}`,
      { field: given[1] ?? "csv" },
    );
  return given[0]!;
}

function formatOf(req: UploadDatasetRequest, field: "csv" | "data" | "url"): DataFormat {
  const asked = (req.format || undefined) as DataFormat | undefined;
  if (field === "csv") {
    if (asked && asked !== "csv")
      throw svcError(
        Code.InvalidArgument,
        "invalid_argument",
        `csv carries CSV text; send a ${asked} file as data or url`,
        { field: "format" },
      );
    return "csv";
  }
  const format = asked ?? (field === "url" ? formatOfUrl(req.url) : undefined);
  if (!format)
    throw svcError(
      Code.InvalidArgument,
      "invalid_argument",
      "say the file's format: csv, parquet or arrow (a url ending in .csv, .parquet or .arrow says it)",
      { field: "format" },
    );
  return format;
}

function inlineSize(csv: string, deps: DatasetDeps): number {
  const size = Buffer.byteLength(csv, "utf8");
  if (size > deps.maxBytes) throw tooLarge("csv", deps.maxBytes, size, "SVC_DATASET_MAX_BYTES");
  return size;
}

/** A URL outside the allowed prefixes is refused before any byte is fetched. */
export function checkImportUrl(url: string, prefixes: readonly string[]): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:"))
    throw svcError(Code.InvalidArgument, "invalid_argument", `url must be http(s); got ${url}`, {
      field: "url",
    });
  if (!prefixes.some((p) => url.startsWith(p)))
    throw svcError(
      Code.PermissionDenied,
      "import_url_not_allowed",
      prefixes.length === 0
        ? "this deployment imports from no URL; an operator lists the allowed prefixes in SVC_DATASET_IMPORT_URL_PREFIXES"
        : `url must start with one of ${prefixes.join(", ")} (SVC_DATASET_IMPORT_URL_PREFIXES)`,
      { field: "url" },
    );
}

function asApiError(err: unknown, field: string, deps: DatasetDeps): unknown {
  if (err instanceof DataInputError)
    return svcError(Code.InvalidArgument, err.code, err.message, {
      field: err.field ?? field,
      ...(err.at.line !== undefined ? { line: err.at.line } : {}),
      ...(err.at.rowGroup !== undefined ? { row_group: err.at.rowGroup } : {}),
      ...(err.at.batch !== undefined ? { batch: err.at.batch } : {}),
      ...(err.at.row !== undefined ? { row: err.at.row } : {}),
    });
  if (err instanceof FetchRefused)
    return err.reason === "too_large"
      ? tooLarge(field, deps.importMaxBytes, err.sizeBytes, "SVC_DATASET_IMPORT_MAX_BYTES")
      : svcError(Code.InvalidArgument, "invalid_argument", err.message, { field });
  return err;
}

function tooLarge(field: string, limit: number, size: number, setting: string) {
  return svcError(
    Code.InvalidArgument,
    "dataset_too_large",
    `the file is ${size} bytes; a data set may be at most ${limit} bytes (${setting})`,
    { field, limit_bytes: limit, size_bytes: size },
  );
}

function taken(name: string) {
  return svcError(
    Code.AlreadyExists,
    "dataset_exists",
    `a data set named ${name} exists already; choose another name (GET /datasets lists them)`,
    { field: "name" },
  );
}

function notFound(name: string) {
  return svcError(
    Code.NotFound,
    "dataset_not_found",
    `no data set named ${name}; GET /datasets lists them`,
    { field: "name" },
  );
}
