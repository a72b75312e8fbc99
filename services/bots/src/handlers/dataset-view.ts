import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { DatasetSchema, type Dataset } from "@svc/gen/svc/bots/v1/bots_pb.js";
import { BUNDLED_DATASETS, streamBars, timeframeMs } from "../engine/index.js";
import { BarDigest } from "../data/chunker.js";
import type { DatasetRow } from "../store/bots.table.js";

/** A stored data set as the API shows it; an empty one (a pull yet to write) has no bar times. */
export function rowToDataset(row: DatasetRow): Dataset {
  const count = Number(row.bar_count);
  return create(DatasetSchema, {
    name: row.name,
    dataSource: `csv:${row.name}`,
    symbol: row.symbol,
    symbols: row.symbols,
    timeframe: row.timeframe,
    ...(count > 0
      ? {
          firstBarTime: timestampFromDate(new Date(row.first_bar_time)),
          lastBarTime: timestampFromDate(new Date(row.last_bar_time)),
        }
      : {}),
    barCount: BigInt(count),
    gaps: BigInt(row.gaps),
    digest: row.digest,
    origin: row.origin,
    format: row.format,
    bundled: false,
    sizeBytes: BigInt(row.size_bytes),
    createdBy: row.created_by,
    createdAt: timestampFromDate(new Date(row.created_at)),
  });
}

/** The bundled data sets by name, read through once (they never change while the process runs). */
export async function bundledDatasets(): Promise<Dataset[]> {
  const out: Dataset[] = [];
  for (const [name, info] of Object.entries(BUNDLED_DATASETS)) {
    const step = timeframeMs(info.timeframe);
    let count = 0;
    let gaps = 0;
    let first = NaN;
    let last = NaN;
    const digest = new BarDigest();
    for await (const b of streamBars(`csv:${name}`)) {
      if (count === 0) first = b.time[0]!;
      for (let i = 0; i < b.length; i++) {
        if (b.time[i]! - last > step) gaps++;
        last = b.time[i]!;
      }
      count += b.length;
      digest.add(info.symbol, b);
    }
    out.push(
      create(DatasetSchema, {
        name,
        dataSource: `csv:${name}`,
        symbol: info.symbol,
        symbols: [info.symbol],
        timeframe: info.timeframe,
        firstBarTime: timestampFromDate(new Date(first)),
        lastBarTime: timestampFromDate(new Date(last)),
        barCount: BigInt(count),
        gaps: BigInt(gaps),
        digest: digest.hex(),
        origin: "bundled",
        format: "csv",
        bundled: true,
      }),
    );
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
