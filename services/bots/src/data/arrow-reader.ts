import { open } from "node:fs/promises";
import { lazily } from "@svc/lib/lazy";
import { DataInputError, mapColumns, rowOf, type BarRow } from "./rows.js";

/**
 * The rows of an OHLCV Arrow IPC file (the file or the stream format), a record batch at a time
 * through apache-arrow's reader: at most one batch is held in memory. Columns are found by name
 * (mapColumns). A bad row is refused naming its record batch and its row within it.
 */
// apache-arrow took a tenth of a second of every start of the bots service: it loads at the
// first Arrow import instead.
const loadArrow = lazily(() => import("apache-arrow"));

export async function* readArrowRows(path: string): AsyncGenerator<BarRow> {
  const { RecordBatchReader } = await loadArrow();
  const handle = await open(path);
  try {
    const reader = await RecordBatchReader.from(handle).catch((err: unknown) => {
      throw notArrow(err);
    });
    await reader.open().catch((err: unknown) => {
      throw notArrow(err);
    });
    const names = reader.schema.fields.map((f) => f.name);
    const map = mapColumns(names);
    if (typeof map === "string") throw new DataInputError("malformed_data", map);
    let batchNo = 0;
    for await (const batch of reader) {
      const col = (name: string) => batch.getChild(name)!;
      const time = col(map.time);
      const values = [map.open, map.high, map.low, map.close, map.volume].map(col);
      const symbol = map.symbol ? col(map.symbol) : undefined;
      for (let row = 0; row < batch.numRows; row++)
        yield rowOf(
          "malformed_data",
          { batch: batchNo, row },
          {
            time: time.get(row),
            symbol: symbol?.get(row),
            values: values.map((v) => v.get(row)),
          },
        );
      batchNo++;
    }
  } finally {
    await handle.close();
  }
}

function notArrow(err: unknown): DataInputError {
  return new DataInputError(
    "malformed_data",
    `the file is not Arrow IPC: ${err instanceof Error ? err.message : String(err)}`,
  );
}
