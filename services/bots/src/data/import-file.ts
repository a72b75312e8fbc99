import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { readArrowRows } from "./arrow-reader.js";
import { readCsvRows } from "./csv-reader.js";
import { readParquetRows } from "./parquet-reader.js";
import type { BarRow } from "./rows.js";

export type DataFormat = "csv" | "parquet" | "arrow";

/** A file to import, on local disk for as long as `use` runs; removed after. */
export interface SpooledFile {
  path: string;
  sizeBytes: number;
}

/** Why a URL's file could not be taken: too large, or the server's answer was not the file. */
export class FetchRefused extends Error {
  constructor(
    readonly reason: "too_large" | "bad_answer",
    message: string,
    readonly sizeBytes = 0,
  ) {
    super(message);
  }
}

/** The format a URL's path names by its extension, or undefined. */
export function formatOfUrl(url: string): DataFormat | undefined {
  const path = new URL(url).pathname.toLowerCase();
  if (path.endsWith(".csv")) return "csv";
  if (path.endsWith(".parquet") || path.endsWith(".pq")) return "parquet";
  if (/\.(arrow|arrows|feather|ipc)$/.test(path)) return "arrow";
  return undefined;
}

/**
 * Streams a URL's body to a temporary file (Parquet and Arrow files are read by byte range, so
 * they need one), refusing it past `maxBytes` as it arrives, never holding it in memory whole.
 */
export async function withUrlFile<T>(
  url: string,
  maxBytes: number,
  signal: AbortSignal,
  use: (file: SpooledFile) => Promise<T>,
): Promise<T> {
  const res = await fetch(url, { signal, redirect: "error" }).catch((err: unknown) => {
    throw new FetchRefused("bad_answer", `fetching ${url} failed: ${messageOf(err)}`);
  });
  if (!res.ok || !res.body)
    throw new FetchRefused("bad_answer", `${url} answered ${res.status} ${res.statusText}`);
  const declared = Number(res.headers.get("content-length") ?? NaN);
  if (declared > maxBytes) {
    await res.body.cancel();
    throw new FetchRefused("too_large", `${url} is ${declared} bytes`, declared);
  }
  return withTempDir(async (dir) => {
    const path = join(dir, "import");
    let size = 0;
    const bound = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        if (size > maxBytes)
          done(new FetchRefused("too_large", `${url} is past ${maxBytes} bytes`, size));
        else done(null, chunk);
      },
    });
    await pipeline(Readable.fromWeb(res.body as never), bound, createWriteStream(path), { signal });
    return use({ path, sizeBytes: size });
  });
}

/** Bytes sent in the request, as a temporary file the readers take like any other. */
export async function withBytesFile<T>(
  data: Uint8Array,
  use: (file: SpooledFile) => Promise<T>,
): Promise<T> {
  return withTempDir(async (dir) => {
    const path = join(dir, "import");
    await writeFile(path, data);
    return use({ path, sizeBytes: data.byteLength });
  });
}

/** The rows of a file in `format`, read a line, a row group or a record batch at a time. */
export function rowsOf(format: DataFormat, path: string): AsyncGenerator<BarRow> {
  if (format === "parquet") return readParquetRows(path);
  if (format === "arrow") return readArrowRows(path);
  return readCsvRows(createReadStream(path));
}

async function withTempDir<T>(use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "svc-dataset-"));
  try {
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function messageOf(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : "";
  return err instanceof Error ? `${err.message}${cause}` : String(err);
}
