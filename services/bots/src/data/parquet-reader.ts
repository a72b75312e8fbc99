import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from "hyparquet";
import { DataInputError, mapColumns, rowOf, type BarRow } from "./rows.js";

/**
 * The rows of an OHLCV Parquet file, a row group at a time (hyparquet reads the footer, then
 * each group's column chunks by byte range): at most one row group is held in memory. The
 * columns are found by name as for a CSV (mapColumns). A bad row is refused naming its row
 * group and its row within it.
 */
export async function* readParquetRows(path: string): AsyncGenerator<BarRow> {
  const file = await asyncBufferFromFile(path);
  const metadata = await parquetMetadataAsync(file).catch((err: unknown) => {
    throw new DataInputError(
      "malformed_data",
      `the file is not Parquet: ${err instanceof Error ? err.message : String(err)}`,
    );
  });
  const names = metadata.schema.slice(1).map((s) => s.name);
  const map = mapColumns(names);
  if (typeof map === "string") throw new DataInputError("malformed_data", map);
  const columns = [map.time, map.open, map.high, map.low, map.close, map.volume];
  if (map.symbol) columns.push(map.symbol);
  let rowStart = 0;
  for (const [group, rg] of metadata.row_groups.entries()) {
    const rowEnd = rowStart + Number(rg.num_rows);
    const rows = await parquetReadObjects({ file, metadata, columns, rowStart, rowEnd }).catch(
      (err: unknown) => {
        throw new DataInputError(
          "malformed_data",
          `row group ${group}: ${err instanceof Error ? err.message : String(err)}`,
          { rowGroup: group },
        );
      },
    );
    for (const [row, r] of rows.entries())
      yield rowOf(
        "malformed_data",
        { rowGroup: group, row },
        {
          time: r[map.time],
          symbol: map.symbol ? r[map.symbol] : undefined,
          values: [r[map.open], r[map.high], r[map.low], r[map.close], r[map.volume]],
        },
      );
    rowStart = rowEnd;
  }
}
